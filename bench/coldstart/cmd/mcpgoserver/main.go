// Command mcpgoserver is the cold-start benchmark's MCP server built with mcp-go: one
// tool, add, served over stdio.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sum struct {
	Sum int `json:"sum"`
}

func main() {
	srv := server.NewMCPServer("coldstart", "1.0.0", server.WithToolCapabilities(false))
	srv.AddTool(mcp.NewTool("add",
		mcp.WithDescription("Add returns the sum of a and b."),
		mcp.WithInputSchema[addArgs](),
		mcp.WithOutputSchema[sum](),
	), mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in addArgs) (sum, error) {
		return sum{in.A + in.B}, nil
	}))
	if err := server.ServeStdio(srv); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgoserver:", err)
		os.Exit(1)
	}
}
