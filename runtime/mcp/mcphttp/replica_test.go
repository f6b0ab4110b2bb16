package mcphttp_test

import (
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp/replicatest"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// memoryBackend shares one MemorySessionStore, MemoryEventStore and
// MemoryBus among the replicas of a cluster.
func memoryBackend(*testing.T) func() replicatest.Backend {
	b := replicatest.Backend{Sessions: mcphttp.NewMemorySessionStore(), Events: mcphttp.NewMemoryEventStore(0), Bus: mcpserver.NewMemoryBus()}
	return func() replicatest.Backend { return b }
}

// TestReplicas runs the multi-replica checks on three handlers of one
// process sharing the memory stores and bus.
func TestReplicas(t *testing.T) { replicatest.Run(t, memoryBackend) }
