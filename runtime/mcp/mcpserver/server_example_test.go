package mcpserver_test

import (
	"context"
	"fmt"
	"log"

	"github.com/rpcgen/rpcgen/internal/greeter"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// A server offers what rpcgen generated from the Greeter interface: the
// generated RegisterGreeter adds its tool, its resource and its prompt. A
// program would then call srv.ServeStdio(ctx), or serve srv over HTTP with
// package mcphttp; here a client in the same process lists the tools and
// calls all three through the generated typed MCP client.
func ExampleNew() {
	srv := mcpserver.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	greeter.RegisterGreeter(srv, greeter.Impl{})

	ctx := context.Background()
	c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	tools, err := c.ListTools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		fmt.Printf("tool %s: %s (read-only: %t)\n", t.Name, t.Description, *t.Annotations.ReadOnlyHint)
	}

	g := greeter.NewGreeterMCPClient(c) // a greeter.Greeter
	hello, err := g.Greet(ctx, "Ada")
	fmt.Println(hello.Text, err)
	motto, err := g.Motto(ctx)
	fmt.Println(motto, err)
	prompt, err := g.Welcome(ctx, "Grace")
	fmt.Println(prompt, err)
	_, err = g.Greet(ctx, "")
	fmt.Println(err)
	// Output:
	// tool greet: Greet returns a greeting for name. (read-only: true)
	// Hello, Ada! <nil>
	// Be kind. <nil>
	// Write two friendly sentences welcoming Grace to the team. <nil>
	// jsonrpc: greet whom? the name is empty (code -32000)
}
