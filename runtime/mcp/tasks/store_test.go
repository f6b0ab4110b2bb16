package tasks_test

import (
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp/tasks"
	"github.com/rpcgen/rpcgen/runtime/mcp/tasks/taskstest"
)

func TestMemoryStoreContract(t *testing.T) {
	taskstest.Run(t, taskstest.Config{New: func(_ *testing.T, max int) tasks.Store {
		return &tasks.MemoryStore{Max: max}
	}})
}
