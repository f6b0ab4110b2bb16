package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// addParams is what a generated client sends for Add(ctx, a, b int).
type addParams struct {
	A int `json:"a"`
	B int `json:"b"`
}

// addHandler is what a generated dispatcher does for Add.
var addHandler = runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	var p addParams
	if err := runtime.DecodeParams(req.Params, &p, &p.A, &p.B); err != nil {
		return nil, err
	}
	return runtime.EncodeResult(p.A + p.B)
})

// add is what a generated client method does.
func add(ctx context.Context, c runtime.Caller, a, b int) (int, error) {
	var sum int
	err := c.Call(ctx, "arith.add", &addParams{A: a, B: b}, &sum)
	return sum, err
}

func benchmarkCall(b *testing.B, client, server runtime.Framer) {
	srv := runtime.NewConn(server, runtime.Options{Handler: addHandler})
	defer srv.Close()
	c := runtime.NewConn(client, runtime.Options{})
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		sum, err := add(ctx, c, i, 1000)
		if err != nil || sum != i+1000 {
			b.Fatalf("add: %d, %v", sum, err)
		}
	}
}

// BenchmarkConnCall measures one call through Conn with a hand-written handler. The
// side-by-side comparison with net/rpc/jsonrpc, through generated code, is
// BenchmarkAdd in examples/calculator.
func BenchmarkConnCall(b *testing.B) {
	b.Run("Pipe", func(b *testing.B) {
		client, server := runtime.Pipe()
		benchmarkCall(b, client, server)
	})
	b.Run("os.Pipe/lines", func(b *testing.B) {
		client, server := benchPipes(b, runtime.NewlineDelimited)
		benchmarkCall(b, client, server)
	})
	b.Run("os.Pipe/headers", func(b *testing.B) {
		client, server := benchPipes(b, runtime.ContentLength)
		benchmarkCall(b, client, server)
	})
}

func benchPipes(b *testing.B, framing runtime.Framing) (client, server runtime.Framer) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return runtime.NewFramer(framing, r2, w1, 0), runtime.NewFramer(framing, r1, w2, 0)
}

// BenchmarkConnCallParallel keeps more calls in flight than MaxInflight, so requests
// wait for a handler slot (queued, or the reader paused).
func BenchmarkConnCallParallel(b *testing.B) {
	client, server := runtime.Pipe()
	srv := runtime.NewConn(server, runtime.Options{Handler: addHandler, MaxInflight: 4})
	defer srv.Close()
	c := runtime.NewConn(client, runtime.Options{})
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			sum, err := add(ctx, c, i, 1000)
			if err != nil || sum != i+1000 {
				b.Errorf("add: %d, %v", sum, err)
				return
			}
		}
	})
}
