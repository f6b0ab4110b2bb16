// Command gosdkserver is the cold-start benchmark's MCP server built with the official
// Go SDK: one tool, add, served over stdio.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sum struct {
	Sum int `json:"sum"`
}

func main() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "coldstart", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "Add returns the sum of a and b."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, sum, error) {
			return nil, sum{in.A + in.B}, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "gosdkserver:", err)
		os.Exit(1)
	}
}
