package rpcbench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(serveEnv); name != "" {
		if err := serveStdio(name); err != nil {
			fmt.Fprintf(os.Stderr, "rpcbench server %s: %v\n", name, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// op is one unit of benchmarked work: call number i (from 1) made by caller worker.
// It returns an error when the answer is wrong.
type op func(i int64, worker int) error

// addOp calls add(i, worker+1) and checks the sum, so the inputs differ on every call
// and no implementation can answer from a cache.
func addOp(add adder) op {
	ctx := context.Background()
	return func(i int64, worker int) error {
		a, b := int(i), worker+1
		sum, err := add(ctx, a, b)
		if err != nil {
			return fmt.Errorf("add(%d, %d): %w", a, b, err)
		}
		if sum != a+b {
			return fmt.Errorf("add(%d, %d) = %d, want %d", a, b, sum, a+b)
		}
		return nil
	}
}

// runCallers runs b.N ops spread over c goroutines that take call numbers from one
// counter, so ns/op is wall time per call with c calls in flight. One untimed call
// first waits for the server to be ready (a subprocess starts answering only once it
// has started).
func runCallers(b *testing.B, c int, do op) {
	b.ReportAllocs()
	if err := do(0, 0); err != nil {
		b.Fatal(err)
	}
	var (
		next   atomic.Int64
		failed atomic.Bool
		first  error
		once   sync.Once
		wg     sync.WaitGroup
	)
	b.ResetTimer()
	for w := range c {
		wg.Go(func() {
			for !failed.Load() {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				if err := do(i, w); err != nil {
					once.Do(func() { first = err })
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if first != nil {
		b.Fatal(first)
	}
}

var concurrencies = []int{1, 16}

// BenchmarkJSONRPC measures one add call, client and server together, for every
// library on every transport, with the ping-pong and JSON floors in each row.
func BenchmarkJSONRPC(b *testing.B) {
	for _, tr := range transports {
		for _, c := range concurrencies {
			row := fmt.Sprintf("add/%s/c=%d", tr.name, c)
			for _, im := range impls {
				if !supports(tr, im) {
					continue
				}
				b.Run(row+"/impl="+im.name, func(b *testing.B) {
					runCallers(b, c, addOp(tr.connect(b, im)))
				})
			}
			b.Run(row+"/impl=pingpong", func(b *testing.B) { runCallers(b, c, tr.pingpong(b, c)) })
			b.Run(row+"/impl=floor", func(b *testing.B) { runCallers(b, c, floorOp()) })
		}
	}
}

// supports reports whether im has a mode for tr, without connecting.
func supports(tr transport, im impl) bool {
	switch tr.name {
	case "memory":
		return im.memory != nil
	case "ospipe":
		return im.serve != nil && im.dial != nil
	case "stdio":
		return im.command != nil || im.dial != nil
	case "http":
		return im.http != nil
	}
	return false
}

// TestSums checks every benchmarked pairing answers correctly, with one caller and
// with several.
func TestSums(t *testing.T) {
	for _, tr := range transports {
		for _, c := range []int{1, 4} {
			for _, im := range impls {
				if !supports(tr, im) {
					continue
				}
				t.Run(fmt.Sprintf("%s/c=%d/%s", tr.name, c, im.name), func(t *testing.T) {
					runOps(t, c, 50, addOp(tr.connect(t, im)))
				})
			}
			t.Run(fmt.Sprintf("%s/c=%d/pingpong", tr.name, c), func(t *testing.T) {
				runOps(t, c, 50, tr.pingpong(t, c))
			})
		}
	}
	t.Run("floor", func(t *testing.T) { runOps(t, 4, 50, floorOp()) })
}

// runOps runs n ops on each of c goroutines.
func runOps(t *testing.T, c, n int, do op) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range c {
		wg.Go(func() {
			for range n {
				if err := do(next.Add(1), w); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
