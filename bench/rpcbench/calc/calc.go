// Package calc is the service the JSON-RPC benchmarks call: one method, add, served and
// called through code rpcgen generates from the Calc interface.
package calc

import "context"

//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen Calc

// Calc adds numbers.
//
//rpcgen:service name=""
type Calc interface {
	// Add returns a + b.
	Add(ctx context.Context, a, b int) (int, error)
}

// Impl is the implementation every benchmark serves.
type Impl struct{}

// Add returns a + b.
func (Impl) Add(ctx context.Context, a, b int) (int, error) { return a + b, nil }
