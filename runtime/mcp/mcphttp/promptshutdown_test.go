package mcphttp_test

import (
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// TestPromptShutdown: PromptShutdown is httpguard.PromptShutdown (tested there).
func TestPromptShutdown(t *testing.T) { rpctest.CheckPromptShutdown(t, mcphttp.PromptShutdown) }
