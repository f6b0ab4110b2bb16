package ask_test

import (
	"context"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
)

// Outside a handler's context there is no call to ask through. Asking from a
// handler is tested with package mcp (input_test.go, mrtr_wire_test.go) and
// end to end by mcphttp and examples/conformance.
func TestOutsideAHandler(t *testing.T) {
	ctx := context.Background()
	if _, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "x"}); err == nil {
		t.Error("Elicit outside a handler: no error")
	}
	if _, err := ask.Sample(ctx, &mcp.CreateMessageParams{MaxTokens: 1}); err == nil {
		t.Error("Sample outside a handler: no error")
	}
	if _, err := ask.ListRoots(ctx); err == nil {
		t.Error("ListRoots outside a handler: no error")
	}
}
