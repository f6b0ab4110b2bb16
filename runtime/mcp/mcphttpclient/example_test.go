package mcphttpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// ExampleConnect calls a tool of a server over HTTP. Connect finds the
// newest protocol revision and transport the server speaks; pin one with
// Options.MCP.ProtocolVersion or Options.Transport.
func ExampleConnect() {
	srv := mcpserver.New(mcp.Implementation{Name: "greeter", Version: "1.0"}, nil)
	srv.AddTools(mcpserver.Tool{
		Name:        "greet",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			var a struct{ Name string }
			if err := json.Unmarshal(args, &a); err != nil {
				return nil, err
			}
			return json.Marshal(map[string]string{"greeting": "Hello, " + a.Name})
		},
	})
	h := mcphttp.NewHandler(srv, nil)
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer h.Close()

	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, hs.URL, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var out struct{ Greeting string }
	if err := c.CallTool(ctx, "greet", map[string]string{"name": "Ada"}, &out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.ProtocolVersion(), out.Greeting)
	// Output: 2026-07-28 Hello, Ada
}
