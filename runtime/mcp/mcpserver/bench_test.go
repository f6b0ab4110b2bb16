package mcpserver_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// benchNote and friends are the realistic small tool the benchmarks call: a
// notes search taking {"query":"x","limit":3} and returning an object.
type benchNote struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

type benchSearchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

type benchSearchResult struct {
	Notes []benchNote `json:"notes"`
	Total int         `json:"total"`
}

var benchNotes = []benchNote{{1, "Groceries"}, {2, "Garden plan"}, {3, "Gift ideas"}}

func benchSearch(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var in benchSearchArgs
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	out := benchSearchResult{Notes: benchNotes[:min(in.Limit, len(benchNotes))], Total: len(benchNotes)}
	return json.Marshal(out)
}

// BenchmarkServerToolsCall measures the server side of one tools/call through
// Session.Handle: envelope, routing, the tool, and the encoded result.
func BenchmarkServerToolsCall(b *testing.B) {
	for _, era := range []struct{ name, version string }{
		{"legacy", mcp.Version20251125},
		{"modern", mcp.Version20260728},
	} {
		b.Run(era.name, func(b *testing.B) {
			srv := mcpserver.New(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
			srv.AddTools(mcpserver.Tool{Name: "search", InputSchema: json.RawMessage(searchSchema), Handler: benchSearch})
			ss := srv.NewSession()
			ctx := context.Background()
			meta := ""
			if era.version == mcp.Version20260728 {
				meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
			} else {
				init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + era.version + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
				if ss.Handle(ctx, []byte(init), nil) == nil {
					b.Fatal("initialize failed")
				}
				ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
			}
			var reqs [][]byte
			for i := range 64 {
				reqs = append(reqs, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","limit":3}`+meta+`}}`))
			}
			if reply := ss.Handle(ctx, reqs[0], nil); !json.Valid(reply) || len(reply) < 100 {
				b.Fatalf("bad reply %s", reply)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ss.Handle(ctx, reqs[i&63], nil)
				i++
			}
		})
	}
}

// BenchmarkServerToolsList measures a pre-encoded tools/list.
func BenchmarkServerToolsList(b *testing.B) {
	fx := newFixture(b)
	ss := fx.srv.NewSession()
	ctx := context.Background()
	ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`), nil)
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	b.ReportAllocs()
	for b.Loop() {
		ss.Handle(ctx, req, nil)
	}
}
