package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"net/rpc"
	"net/rpc/jsonrpc"
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

// Arith is the net/rpc service of the yardstick benchmark.
type Arith struct{}

// AddArgs are Add's params; net/rpc requires an exported type.
type AddArgs struct{ A, B int }

// Add sets *sum to p.A + p.B.
func (Arith) Add(p AddArgs, sum *int) error {
	*sum = p.A + p.B
	return nil
}

type pipeRWC struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeRWC) Close() error {
	for _, c := range p.closers {
		c.Close()
	}
	return nil
}

// BenchmarkNetRPCJSON is the yardstick: the standard library's net/rpc with its JSON-RPC
// codec over the same OS pipes.
func BenchmarkNetRPCJSON(b *testing.B) {
	r1, w1, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	srv := rpc.NewServer()
	if err := srv.Register(Arith{}); err != nil {
		b.Fatal(err)
	}
	go srv.ServeCodec(jsonrpc.NewServerCodec(pipeRWC{r1, w2, []io.Closer{r1, w2}}))
	client := jsonrpc.NewClient(pipeRWC{r2, w1, []io.Closer{r2, w1}})
	defer client.Close()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		var sum int
		if err := client.Call("Arith.Add", AddArgs{A: i, B: 1000}, &sum); err != nil || sum != i+1000 {
			b.Fatalf("add: %d, %v", sum, err)
		}
	}
}
