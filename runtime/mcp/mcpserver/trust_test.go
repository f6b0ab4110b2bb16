package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestTrustResults: a tool that trusts its results has them passed on as
// they are, and one that does not has them checked; tool middleware, which
// may replace a result, turns the trust off.
func TestTrustResults(t *testing.T) {
	tool := func(name string, trust bool, res string) mcpserver.Tool {
		return mcpserver.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), TrustResults: trust,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(res), nil }}
	}
	// The "trusted" tool breaks its promise, so that the test can see whether
	// the server looked: its result is not JSON unless one reads it as text.
	const broken = `{"a":1`
	tools := []mcpserver.Tool{tool("trusted", true, broken), tool("checked", false, broken), tool("fine", true, `{"a":1}`)}

	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTools(tools...)
	if got := callIn(t, srv, mcp.Version20250618, "fine"); got != `{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1}}` {
		t.Errorf("fine: result %s", got)
	}
	if got := callIn(t, srv, mcp.Version20250618, "checked"); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "internal error in tool checked") {
		t.Errorf("checked: result %s, want the internal error result", got)
	}
	// Passed on unchecked: the reply is the broken result in place (the
	// response as a whole is then malformed, as TrustResults warns).
	ss := srv.NewSession()
	ctx := context.Background()
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), nil)
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	reply := ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"trusted"}}`), nil)
	if !strings.Contains(string(reply), `"structuredContent":`+broken) {
		t.Errorf("trusted: reply %s, want the result passed on unchecked", reply)
	}

	withMiddleware := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, &mcpserver.Options{
		ToolMiddleware: []mcpserver.ToolMiddleware{func(next mcpserver.ToolCallHandler) mcpserver.ToolCallHandler { return next }},
	})
	withMiddleware.AddTools(tools...)
	if got := callIn(t, withMiddleware, mcp.Version20250618, "trusted"); !strings.Contains(got, "internal error in tool trusted") {
		t.Errorf("trusted behind middleware: result %s, want the internal error result", got)
	}
}
