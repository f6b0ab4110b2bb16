package mcpclient_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// clientBenchAdd is a small hand-written tool: the JSON work a generated one does.
func clientBenchAdd(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var a floorArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	return json.Marshal(floorResult{Sum: a.A + a.B})
}

// BenchmarkClientToolsCall measures one tools/call round trip in process
// (client encode, Session.Handle, tool, client decode); BenchmarkJSONFloor is
// its yardstick.
func BenchmarkClientToolsCall(b *testing.B) {
	for _, era := range []struct{ name, version string }{
		{"legacy", mcp.Version20251125},
		{"modern", mcp.Version20260728},
	} {
		b.Run(era.name, func(b *testing.B) {
			srv := mcpserver.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
			srv.AddTools(mcpserver.Tool{Name: "add", InputSchema: json.RawMessage(clientAddSchema), Handler: clientBenchAdd})
			ctx := context.Background()
			c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: era.version})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchCalls(b, c)
		})
	}
	// For comparison: the same call through a goroutine-backed connection.
	b.Run("legacy-pipe", func(b *testing.B) {
		srv := mcpserver.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
		srv.AddTools(mcpserver.Tool{Name: "add", InputSchema: json.RawMessage(clientAddSchema), Handler: clientBenchAdd})
		client, server := runtime.Pipe()
		served := make(chan error, 1)
		go func() { served <- srv.Serve(context.Background(), server) }()
		c, err := mcpclient.Connect(context.Background(), client, mcpclient.Options{ProtocolVersion: mcp.Version20251125})
		if err != nil {
			b.Fatal(err)
		}
		benchCalls(b, c)
		c.Close()
		<-served
	})
}

func benchCalls(b *testing.B, c *mcpclient.Client) {
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		var res floorResult
		if err := c.CallTool(ctx, "add", &floorArgs{A: i, B: 1000}, &res); err != nil || res.Sum != i+1000 {
			b.Fatalf("add: %+v, %v", res, err)
		}
	}
}
