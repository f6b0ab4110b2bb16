package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// memClient returns a client connected in memory to a served calculator.
func memClient(t testing.TB) *CalculatorClient {
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: NewCalculatorHandler(&calculator{})})
	client := runtime.NewConn(b, runtime.Options{})
	t.Cleanup(func() { client.Close(); server.Close() })
	return NewCalculatorClient(client)
}

// osPipes returns the two ends of a duplex connection made of two OS pipes.
func osPipes(t testing.TB) (clientR, serverR *os.File, clientW, serverW *os.File) {
	c2sR, c2sW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s2cR, s2cW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return s2cR, c2sR, c2sW, s2cW
}

func pipeClient(t testing.TB) *CalculatorClient {
	clientR, serverR, clientW, serverW := osPipes(t)
	server := runtime.NewConn(runtime.NewLineFramer(serverR, serverW, 0), runtime.Options{Handler: NewCalculatorHandler(&calculator{})})
	client := runtime.NewConn(runtime.NewLineFramer(clientR, clientW, 0), runtime.Options{})
	t.Cleanup(func() { client.Close(); server.Close() })
	return NewCalculatorClient(client)
}

func TestDemoInMemory(t *testing.T) {
	if err := demo(context.Background(), memClient(t), "memory"); err != nil {
		t.Fatal(err)
	}
}

func TestDemoOverOSPipes(t *testing.T) {
	if err := demo(context.Background(), pipeClient(t), "OS pipes"); err != nil {
		t.Fatal(err)
	}
}

func TestDemoOverHTTP(t *testing.T) {
	srv := httptest.NewServer(rpchttp.NewHandler(NewCalculatorHandler(&calculator{}), rpchttp.Options{}))
	defer srv.Close()
	if err := demo(context.Background(), NewCalculatorClient(rpchttp.NewClient(srv.URL)), "HTTP"); err != nil {
		t.Fatal(err)
	}
}

// TestDemoLocal runs the same code on the implementation itself: the
// generated client and the implementation are interchangeable.
func TestDemoLocal(t *testing.T) {
	if err := demo(context.Background(), &calculator{}, "process"); err != nil {
		t.Fatal(err)
	}
}

func TestErrorsReachTheClient(t *testing.T) {
	calc := memClient(t)
	_, err := calc.Stats(context.Background(), StatsRequest{})
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams {
		t.Fatalf("Stats with no numbers: got %v, want invalid params", err)
	}
}

// Arith is the net/rpc service the benchmark uses as its yardstick.
type Arith struct{}

// AddArgs are the arguments of Arith.Add.
type AddArgs struct{ A, B int }

// Add sets reply to a + b.
func (Arith) Add(args *AddArgs, reply *int) error {
	*reply = args.A + args.B
	return nil
}

type duplex struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (d duplex) Close() error {
	for _, c := range d.closers {
		c.Close()
	}
	return nil
}

func netRPCClient(b *testing.B, serverSide, clientSide io.ReadWriteCloser) *rpc.Client {
	srv := rpc.NewServer()
	if err := srv.Register(Arith{}); err != nil {
		b.Fatal(err)
	}
	go srv.ServeCodec(jsonrpc.NewServerCodec(serverSide))
	client := jsonrpc.NewClient(clientSide)
	b.Cleanup(func() { client.Close(); serverSide.Close() })
	return client
}

// BenchmarkAdd measures one typed call Add(ctx, 2, 3), client and server
// together, against the standard library's net/rpc/jsonrpc on the same kind
// of pipe. Compare with:
//
//	go test -run '^$' -bench Add -benchmem -count 10 ./examples/calculator | benchstat -col /impl -
func BenchmarkAdd(b *testing.B) {
	ctx := context.Background()
	typed := func(b *testing.B, calc Calculator) {
		b.ReportAllocs()
		for b.Loop() {
			if sum, err := calc.Add(ctx, 2, 3); err != nil || sum != 5 {
				b.Fatalf("Add = %d, %v", sum, err)
			}
		}
	}
	yardstick := func(b *testing.B, client *rpc.Client) {
		b.ReportAllocs()
		var sum int
		for b.Loop() {
			if err := client.Call("Arith.Add", &AddArgs{A: 2, B: 3}, &sum); err != nil || sum != 5 {
				b.Fatalf("Arith.Add = %d, %v", sum, err)
			}
		}
	}
	b.Run("pipe=memory/impl=rpcgen", func(b *testing.B) { typed(b, memClient(b)) })
	b.Run("pipe=memory/impl=netrpc", func(b *testing.B) {
		s, c := net.Pipe()
		yardstick(b, netRPCClient(b, s, c))
	})
	b.Run("pipe=os/impl=rpcgen", func(b *testing.B) { typed(b, pipeClient(b)) })
	b.Run("pipe=os/impl=netrpc", func(b *testing.B) {
		clientR, serverR, clientW, serverW := osPipes(b)
		server := duplex{serverR, serverW, []io.Closer{serverR, serverW}}
		client := duplex{clientR, clientW, []io.Closer{clientR, clientW}}
		yardstick(b, netRPCClient(b, server, client))
	})
}
