package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// A client calls a tool of a server in the same process. DialCommand does
// the same with a server in a subprocess, Connect over any runtime.Framer.
func ExampleConnectTransport() {
	srv := mcpserver.New(mcp.Implementation{Name: "calc", Version: "1.0"}, nil)
	srv.AddTools(mcpserver.Tool{
		Name:        "add",
		Description: "Adds two integers.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`),
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var p struct{ A, B int }
			if err := json.Unmarshal(args, &p); err != nil {
				return nil, err
			}
			return json.Marshal(map[string]int{"sum": p.A + p.B})
		},
	})

	ctx := context.Background()
	c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	var out struct{ Sum int }
	if err := c.CallTool(ctx, "add", map[string]int{"a": 2, "b": 3}, &out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.ProtocolVersion(), c.ServerInfo().Name, out.Sum)
	// Output: 2026-07-28 calc 5
}
