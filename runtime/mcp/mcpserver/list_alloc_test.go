package mcpserver_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// bigListServer is a server of 10,000 tools whose tools/list is about 5 MB,
// with a legacy session initialized on it.
func bigListServer(t testing.TB) *mcpserver.Session {
	schema := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"what to look for, in words"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"at most this many results"}},"required":["query"],"additionalProperties":false}`)
	desc := strings.Repeat("Searches the notes for a query and returns the best matches. ", 4)
	srv := mcpserver.New(mcp.Implementation{Name: "big", Version: "1"}, nil)
	tools := make([]mcpserver.Tool, 10000)
	for i := range tools {
		tools[i] = mcpserver.Tool{Name: "search_" + strconv.Itoa(i), Description: desc, InputSchema: schema,
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	}
	srv.AddTools(tools...)
	ss := srv.NewSession()
	ctx := context.Background()
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), nil)
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	return ss
}

var listReq = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)

// BenchmarkServerToolsListBig measures tools/list of 10,000 tools (about
// 5 MB) through Session.Handle; page-B/op is the size of the response.
func BenchmarkServerToolsListBig(b *testing.B) {
	ss := bigListServer(b)
	ctx := context.Background()
	n := len(ss.Handle(ctx, listReq, nil))
	b.ReportAllocs()
	for b.Loop() {
		ss.Handle(ctx, listReq, nil)
	}
	b.ReportMetric(float64(n), "page-B/op")
}
