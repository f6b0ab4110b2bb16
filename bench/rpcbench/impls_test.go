package rpcbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"os/exec"
	"testing"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	"github.com/creachadair/jrpc2/jhttp"
	sgjsonrpc2 "github.com/sourcegraph/jsonrpc2"

	"github.com/rpcgen/rpcgen/bench/rpcbench/calc"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// adder makes one add call and returns what the server answered.
type adder func(ctx context.Context, a, b int) (int, error)

// impl is one way of serving and calling add. Every field but name may be nil when the
// library has no such mode; the benchmark then leaves that row's cell empty.
type impl struct {
	name string
	// memory connects a client to an in-process server without the operating system.
	memory func(tb testing.TB) adder
	// serve serves add on a byte stream until the stream ends: the server side of OS
	// pipes, and of the stdio subprocess (with os.Stdin and os.Stdout).
	serve func(r io.Reader, w io.WriteCloser) error
	// dial returns a client over a byte stream; closeAll ends the stream.
	dial func(tb testing.TB, s stream) adder
	// command, if not nil, starts the stdio subprocess itself (rpcgen uses its own
	// runtime.DialCommand); otherwise the harness starts it and calls dial.
	command func(tb testing.TB, cmd *exec.Cmd) adder
	// http starts an HTTP server on loopback and returns a client for it.
	http func(tb testing.TB) adder
}

// stream is one side of a duplex byte stream; Close closes both directions.
type stream struct {
	io.Reader
	io.WriteCloser
	closers []io.Closer
}

func (s stream) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// addParams is the params object every peer decodes {"a":..,"b":..} into.
type addParams struct {
	A int `json:"a"`
	B int `json:"b"`
}

// impls lists the libraries under test, in the order the report shows them.
// golang.org/x/exp/jsonrpc2 is absent: the newest x/exp no longer has that package.
var impls = []impl{rpcgenImpl, sourcegraphImpl, jrpc2Impl, netrpcImpl}

// rpcgenImpl is the generated client and dispatcher of calc.Calc over rpcgen's runtime.
var rpcgenImpl = impl{
	name: "rpcgen",
	memory: func(tb testing.TB) adder {
		a, b := runtime.Pipe()
		server := runtime.NewConn(a, runtime.Options{Handler: calc.NewCalcHandler(calc.Impl{})})
		client := runtime.NewConn(b, runtime.Options{})
		tb.Cleanup(func() { client.Close(); server.Close() })
		return calc.NewCalcClient(client).Add
	},
	serve: func(r io.Reader, w io.WriteCloser) error {
		return runtime.Serve(context.Background(), runtime.NewLineFramer(r, w, 0),
			runtime.Options{Handler: calc.NewCalcHandler(calc.Impl{})})
	},
	dial: func(tb testing.TB, s stream) adder {
		client := runtime.NewConn(runtime.NewLineFramer(s.Reader, s, 0), runtime.Options{})
		tb.Cleanup(func() { client.Close() })
		return calc.NewCalcClient(client).Add
	},
	command: func(tb testing.TB, cmd *exec.Cmd) adder {
		client, err := runtime.DialCommand(context.Background(), cmd, runtime.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() {
			if err := client.Close(); err != nil {
				tb.Errorf("close rpcgen subprocess: %v", err)
			}
		})
		return calc.NewCalcClient(client).Add
	},
	http: func(tb testing.TB) adder {
		srv := httptest.NewServer(rpchttp.NewHandler(calc.NewCalcHandler(calc.Impl{}), rpchttp.Options{}))
		hc := httpClient(tb, srv)
		return calc.NewCalcClient(&rpchttp.Client{URL: srv.URL, Client: hc}).Add
	},
}

// sourcegraphImpl is github.com/sourcegraph/jsonrpc2 with its plain object stream
// (encoding/json's Encoder, which ends each message with a newline, and Decoder) and
// its default synchronous handler. It has no in-memory channel and no HTTP mode.
var sourcegraphImpl = impl{
	name: "sourcegraph",
	memory: func(tb testing.TB) adder {
		s, c := net.Pipe()
		go background("sourcegraph server", func() error { return sourcegraphServe(s) })
		return sourcegraphDial(tb, c)
	},
	serve: func(r io.Reader, w io.WriteCloser) error {
		return sourcegraphServe(stream{Reader: r, WriteCloser: w, closers: closers(r, w)})
	},
	dial: func(tb testing.TB, s stream) adder { return sourcegraphDial(tb, s) },
}

// sourcegraphQuiet drops the library's log of the stream ending at cleanup.
var sourcegraphQuiet = sgjsonrpc2.SetLogger(log.New(io.Discard, "", 0))

func sourcegraphServe(rwc io.ReadWriteCloser) error {
	h := sgjsonrpc2.HandlerWithError(func(ctx context.Context, _ *sgjsonrpc2.Conn, req *sgjsonrpc2.Request) (any, error) {
		if req.Method != "add" {
			return nil, &sgjsonrpc2.Error{Code: sgjsonrpc2.CodeMethodNotFound, Message: "method not found: " + req.Method}
		}
		var p addParams
		if req.Params == nil {
			return nil, &sgjsonrpc2.Error{Code: sgjsonrpc2.CodeInvalidParams, Message: "missing params"}
		}
		if err := json.Unmarshal(*req.Params, &p); err != nil {
			return nil, &sgjsonrpc2.Error{Code: sgjsonrpc2.CodeInvalidParams, Message: err.Error()}
		}
		return p.A + p.B, nil
	})
	conn := sgjsonrpc2.NewConn(context.Background(), sgjsonrpc2.NewPlainObjectStream(rwc), h.SuppressErrClosed(), sourcegraphQuiet)
	<-conn.DisconnectNotify()
	return nil
}

func sourcegraphDial(tb testing.TB, rwc io.ReadWriteCloser) adder {
	refuse := sgjsonrpc2.HandlerWithError(func(context.Context, *sgjsonrpc2.Conn, *sgjsonrpc2.Request) (any, error) {
		return nil, &sgjsonrpc2.Error{Code: sgjsonrpc2.CodeMethodNotFound, Message: "the client serves nothing"}
	})
	conn := sgjsonrpc2.NewConn(context.Background(), sgjsonrpc2.NewPlainObjectStream(rwc), refuse, sourcegraphQuiet)
	tb.Cleanup(func() { conn.Close() })
	return func(ctx context.Context, a, b int) (int, error) {
		var sum int
		err := conn.Call(ctx, "add", addParams{A: a, B: b}, &sum)
		return sum, err
	}
}

// jrpc2Impl is github.com/creachadair/jrpc2 with reflection-based handler.New, over its
// channel.Direct in memory, channel.Line (newline framing) on streams, and its jhttp
// Bridge and Channel over HTTP.
var jrpc2Impl = impl{
	name: "jrpc2",
	memory: func(tb testing.TB) adder {
		c, s := channel.Direct()
		srv := jrpc2.NewServer(jrpc2Assigner(), nil).Start(s)
		cli := jrpc2.NewClient(c, nil)
		tb.Cleanup(func() { cli.Close(); srv.Stop() })
		return jrpc2Add(cli)
	},
	serve: func(r io.Reader, w io.WriteCloser) error {
		return jrpc2.NewServer(jrpc2Assigner(), nil).Start(channel.Line(r, w)).Wait()
	},
	dial: func(tb testing.TB, s stream) adder {
		cli := jrpc2.NewClient(channel.Line(s.Reader, s), nil)
		tb.Cleanup(func() { cli.Close() })
		return jrpc2Add(cli)
	},
	http: func(tb testing.TB) adder {
		bridge := jhttp.NewBridge(jrpc2Assigner(), nil)
		srv := httptest.NewServer(bridge)
		tb.Cleanup(func() { bridge.Close() })
		hc := httpClient(tb, srv)
		cli := jrpc2.NewClient(jhttp.NewChannel(srv.URL, &jhttp.ChannelOptions{Client: hc}), nil)
		tb.Cleanup(func() { cli.Close() })
		return jrpc2Add(cli)
	},
}

func jrpc2Assigner() jrpc2.Assigner {
	return handler.Map{"add": handler.New(func(ctx context.Context, p addParams) (int, error) {
		return p.A + p.B, nil
	})}
}

func jrpc2Add(cli *jrpc2.Client) adder {
	return func(ctx context.Context, a, b int) (int, error) {
		var sum int
		err := cli.CallResult(ctx, "add", addParams{A: a, B: b}, &sum)
		return sum, err
	}
}

// netrpcImpl is the standard library's net/rpc with its net/rpc/jsonrpc codec. That
// codec speaks JSON-RPC 1.0 rather than 2.0: no "jsonrpc" member, params always a
// one-element array, method names "Service.Method" (so "Arith.Add" here). It writes
// with encoding/json's Encoder (one message per line) and reads with its Decoder. It
// has no in-memory channel (net.Pipe stands in) and no JSON-over-HTTP mode.
var netrpcImpl = impl{
	name: "netrpc",
	memory: func(tb testing.TB) adder {
		s, c := net.Pipe()
		go background("netrpc server", func() error { return netrpcServe(s) })
		return netrpcDial(tb, c)
	},
	serve: func(r io.Reader, w io.WriteCloser) error {
		return netrpcServe(stream{Reader: r, WriteCloser: w, closers: closers(r, w)})
	},
	dial: func(tb testing.TB, s stream) adder { return netrpcDial(tb, s) },
}

// Arith is the net/rpc service.
type Arith struct{}

// ArithArgs is the params object of Arith.Add; net/rpc needs an exported type.
type ArithArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Add sets sum to p.A + p.B.
func (Arith) Add(p *ArithArgs, sum *int) error {
	*sum = p.A + p.B
	return nil
}

func netrpcServe(rwc io.ReadWriteCloser) error {
	srv := rpc.NewServer()
	if err := srv.Register(Arith{}); err != nil {
		return err
	}
	srv.ServeCodec(jsonrpc.NewServerCodec(rwc))
	return nil
}

func netrpcDial(tb testing.TB, rwc io.ReadWriteCloser) adder {
	cli := jsonrpc.NewClient(rwc)
	tb.Cleanup(func() { cli.Close() })
	return func(ctx context.Context, a, b int) (int, error) {
		var sum int
		err := cli.Call("Arith.Add", &ArithArgs{A: a, B: b}, &sum)
		return sum, err
	}
}

// background runs a server goroutine and reports its failure, which would otherwise
// show only as a hung benchmark.
// Errors from the cleanup closing the server's own end are the normal way out.
func background(what string, serve func() error) {
	err := serve()
	if err != nil && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, net.ErrClosed) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", what, err)
	}
}

// closers returns r and w as closers, for those that are.
func closers(r io.Reader, w io.Writer) []io.Closer {
	var cs []io.Closer
	for _, x := range []any{r, w} {
		if c, ok := x.(io.Closer); ok {
			cs = append(cs, c)
		}
	}
	return cs
}

// implByName finds a library for the stdio subprocess.
func implByName(name string) (impl, error) {
	for _, im := range impls {
		if im.name == name {
			return im, nil
		}
	}
	return impl{}, fmt.Errorf("no implementation %q", name)
}

// serveStdio is the stdio subprocess's main: it serves add on its stdin and stdout.
func serveStdio(name string) error {
	switch name {
	case "rpcgen":
		return runtime.ServeStdio(context.Background(), runtime.Options{Handler: calc.NewCalcHandler(calc.Impl{})})
	case "pingpong":
		return pingpongServe(os.Stdin, os.Stdout)
	}
	im, err := implByName(name)
	if err != nil {
		return err
	}
	return im.serve(os.Stdin, os.Stdout)
}
