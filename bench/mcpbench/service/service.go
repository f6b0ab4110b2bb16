// Package service is the interface the MCP benchmarks serve through rpcgen:
// three tools, add, echo and large, with typed arguments and structured results.
package service

import (
	"context"
	"fmt"
)

//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen Bench

// Bench is the service every MCP peer in the benchmarks implements.
type Bench interface {
	// Add returns the sum of a and b.
	Add(ctx context.Context, a, b int) (Sum, error)
	// Echo returns text unchanged.
	Echo(ctx context.Context, text string) (Echoed, error)
	// Large returns the first n records of a fixed list.
	Large(ctx context.Context, n int) (Records, error)
}

// Sum is the result of Add.
type Sum struct {
	Sum int `json:"sum"`
}

// Echoed is the result of Echo.
type Echoed struct {
	Text string `json:"text"`
}

// Records is the result of Large: LargeN records are 1,055,711 bytes of
// JSON (about 1 MiB).
type Records struct {
	Items []Record `json:"items"`
}

// Record is one element of Records.
type Record struct {
	ID     int      `json:"id"`
	Name   string   `json:"name"`
	Tags   []string `json:"tags"`
	Score  float64  `json:"score"`
	Active bool     `json:"active"`
}

// LargeN is the number of records the large workload asks for.
const LargeN = 9000

// LargeRecords are the records Large returns, built once, so that a call
// costs its JSON work and nothing else.
var LargeRecords = func() []Record {
	tags := [][]string{{"alpha", "beta"}, {"gamma"}, {"delta", "epsilon", "zeta"}, nil}
	r := make([]Record, LargeN)
	for i := range r {
		r[i] = Record{
			ID:     i,
			Name:   fmt.Sprintf("record %05d of the large result, plain ASCII", i),
			Tags:   tags[i%len(tags)],
			Score:  float64(i) * 0.25,
			Active: i%3 == 0,
		}
		if r[i].Tags == nil {
			r[i].Tags = []string{}
		}
	}
	return r
}()

// Impl is the implementation the benchmarks serve.
type Impl struct{}

var _ Bench = Impl{}

// Add returns a + b.
func (Impl) Add(_ context.Context, a, b int) (Sum, error) { return Sum{Sum: a + b}, nil }

// Echo returns text.
func (Impl) Echo(_ context.Context, text string) (Echoed, error) { return Echoed{Text: text}, nil }

// Large returns the first n of LargeRecords.
func (Impl) Large(_ context.Context, n int) (Records, error) {
	if n < 0 || n > len(LargeRecords) {
		return Records{}, fmt.Errorf("n must be between 0 and %d", len(LargeRecords))
	}
	return Records{Items: LargeRecords[:n]}, nil
}
