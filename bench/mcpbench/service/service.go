// Package service is the interface the MCP benchmarks serve through rpcgen:
// two tools, add and echo, with typed arguments and structured results.
package service

import "context"

//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen Bench

// Bench is the service every MCP peer in the benchmarks implements.
type Bench interface {
	// Add returns the sum of a and b.
	Add(ctx context.Context, a, b int) (Sum, error)
	// Echo returns text unchanged.
	Echo(ctx context.Context, text string) (Echoed, error)
}

// Sum is the result of Add.
type Sum struct {
	Sum int `json:"sum"`
}

// Echoed is the result of Echo.
type Echoed struct {
	Text string `json:"text"`
}

// Impl is the implementation the benchmarks serve.
type Impl struct{}

var _ Bench = Impl{}

// Add returns a + b.
func (Impl) Add(_ context.Context, a, b int) (Sum, error) { return Sum{Sum: a + b}, nil }

// Echo returns text.
func (Impl) Echo(_ context.Context, text string) (Echoed, error) { return Echoed{Text: text}, nil }
