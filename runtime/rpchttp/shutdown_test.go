package rpchttp_test

import (
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// TestPromptShutdown: PromptShutdown is httpguard.PromptShutdown (tested there).
func TestPromptShutdown(t *testing.T) { rpctest.CheckPromptShutdown(t, rpchttp.PromptShutdown) }
