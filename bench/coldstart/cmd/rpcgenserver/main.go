// Command rpcgenserver is the cold-start benchmark's rpcgen MCP server: one tool, add,
// generated from the Adder interface and served over stdio.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen Adder

// Adder adds numbers.
type Adder interface {
	// Add returns the sum of a and b.
	Add(ctx context.Context, a, b int) (Sum, error)
}

// Sum is the result of Add.
type Sum struct {
	Sum int `json:"sum"`
}

type adder struct{}

func (adder) Add(ctx context.Context, a, b int) (Sum, error) { return Sum{a + b}, nil }

func main() {
	srv := mcpserver.New(mcp.Implementation{Name: "coldstart", Version: "1.0.0"}, nil)
	srv.AddTools(AdderTools(adder{})...)
	if err := srv.ServeStdio(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "rpcgenserver:", err)
		os.Exit(1)
	}
}
