package mcphttp_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/rpcgen/rpcgen/internal/greeter"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// An MCP server over HTTP, offering what rpcgen generated from the Greeter
// interface, and a client calling it through the generated typed MCP
// client, first in the newest revision and then in a legacy session.
func ExampleNewHandler() {
	srv := mcpserver.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	greeter.RegisterGreeter(srv, greeter.Impl{})
	h := mcphttp.NewHandler(srv, nil) // the safe defaults: see Options
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer h.Close()

	ctx := context.Background()
	for _, version := range []string{"", mcp.Version20251125} {
		c, err := mcphttpclient.Connect(ctx, hs.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: version}})
		if err != nil {
			log.Fatal(err)
		}
		g := greeter.NewGreeterMCPClient(c)
		hello, err := g.Greet(ctx, "Ada")
		if err != nil {
			log.Fatal(err)
		}
		motto, err := g.Motto(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(c.ProtocolVersion(), hello.Text, motto)
		c.Close()
	}
	// Output:
	// 2026-07-28 Hello, Ada! Be kind.
	// 2025-11-25 Hello, Ada! Be kind.
}
