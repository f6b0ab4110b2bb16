package rpcnet_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

// service answers "echo" with its params, "big" [n] with a string of n bytes, "block" once release is closed
// (counting its calls), and streams "count" [n].
type service struct {
	blocked chan struct{} // gets a value when a block call starts
	release chan struct{}
	blocks  atomic.Int64
}

func newService() *service {
	return &service{blocked: make(chan struct{}, 16), release: make(chan struct{})}
}

func (s *service) ServeRPC(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	switch req.Method {
	case "echo":
		return req.Params, nil
	case "block":
		s.blocks.Add(1)
		s.blocked <- struct{}{}
		select {
		case <-s.release:
			return json.RawMessage(`"released"`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "big":
		var n [1]int
		if err := json.Unmarshal(req.Params, &n); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		return bigAnswer(n[0]), nil
	case "count":
		var n [1]int
		if err := json.Unmarshal(req.Params, &n); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		return runtime.ServeStream(ctx, count(ctx, n[0]))
	}
	return nil, runtime.ErrMethodNotFound(req.Method)
}

func count(ctx context.Context, n int) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		for i := 0; n < 0 || i < n; i++ {
			if !yield(i, nil) || ctx.Err() != nil {
				return
			}
		}
	}
}

// server runs srv on a new listener of network and returns its address.
func server(t *testing.T, network string, srv *rpcnet.Server) string {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s.sock")
	}
	ln, err := rpcnet.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, ln, srv)
}

func serveOn(t *testing.T, ln net.Listener, srv *rpcnet.Server) string {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-served; !errors.Is(err, rpcnet.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

func TestDialCallAndStream(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			addr := server(t, network, &rpcnet.Server{Options: runtime.Options{Handler: newService()}})
			c, err := rpcnet.Dial(context.Background(), network, addr, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var got []int
			if err := c.Call(context.Background(), "echo", []int{1, 2}, &got); err != nil || len(got) != 2 {
				t.Fatalf("echo: %v, %v", got, err)
			}
			n := 0
			for v, err := range runtime.Stream[int](context.Background(), c, "count", []int{-1}) {
				if err != nil || v != n {
					t.Fatalf("item %d: %d, %v", n, v, err)
				}
				if n++; n == 1000 {
					break
				}
			}
		})
	}
}

func TestDialWrongAddress(t *testing.T) {
	_, err := rpcnet.Dial(context.Background(), "unix", filepath.Join(t.TempDir(), "none.sock"), nil)
	if !errors.Is(err, runtime.ErrNotSent) || !strings.Contains(err.Error(), "none.sock") {
		t.Fatalf("Dial of a missing socket: %v", err)
	}
}

// TestConnLimit fills the limit: the next connection gets an error response
// saying so and is closed; once a slot frees, a new connection is served.
func TestConnLimit(t *testing.T) {
	rpctest.CheckLeaks(t)
	srv := &rpcnet.Server{Options: runtime.Options{Handler: newService()}, MaxConns: 1}
	addr := server(t, "tcp", srv)
	first, err := rpcnet.Dial(context.Background(), "tcp", addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Call(context.Background(), "echo", []int{1}, nil); err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	f := runtime.NewLineFramer(nc, nc, 0)
	msg, err := f.ReadMessage()
	if err != nil || !strings.Contains(string(msg), "limit of 1 connections") {
		t.Fatalf("over the limit: %s, %v", msg, err)
	}
	if _, err := f.ReadMessage(); err == nil {
		t.Fatal("the connection over the limit stays open")
	}
	nc.Close()
	first.Close()
	second, err := rpcnet.Dial(context.Background(), "tcp", addr, &rpcnet.DialOptions{Redial: runtime.RedialOptions{Retry: runtime.RetryPolicy{Attempts: 50, MaxDelay: 50 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	// The slot frees once the server has seen the first connection end; until
	// then the new one may be refused, so retry like a client would.
	for i := 0; ; i++ {
		err := second.Call(context.Background(), "echo", []int{2}, nil)
		if err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("after the first connection closed: %v", err)
		}
		second.Close()
		second, _ = rpcnet.Dial(context.Background(), "tcp", addr, nil)
		if second == nil {
			t.Fatal("dial failed")
		}
	}
}

// TestShutdownWaitsForCalls shuts down with a call in flight: the call is
// answered, then Serve returns and new connections are refused.
func TestShutdownWaitsForCalls(t *testing.T) {
	rpctest.CheckLeaks(t)
	svc := newService()
	srv := &rpcnet.Server{Options: runtime.Options{Handler: svc}}
	ln, err := rpcnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	c, err := rpcnet.Dial(context.Background(), "tcp", ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	answer := make(chan error, 1)
	go func() {
		var got string
		err := c.Call(context.Background(), "block", nil, &got)
		if err == nil && got != "released" {
			err = errors.New("got " + got)
		}
		answer <- err
	}()
	<-svc.blocked
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(context.Background()) }()
	if err := <-served; !errors.Is(err, rpcnet.ErrServerClosed) {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Fatal("a shut-down server accepts connections")
	}
	close(svc.release)
	if err := <-answer; err != nil {
		t.Fatalf("the call in flight: %v", err)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// TestDropInFlight drops the connection under a call: a plain call fails
// with ErrConnectionLost and is not retried; an idempotent one is retried on
// a new connection and succeeds.
func TestDropInFlight(t *testing.T) {
	rpctest.CheckLeaks(t)
	svc := newService()
	var conns []*runtime.Conn
	connected := make(chan *runtime.Conn, 8)
	srv := &rpcnet.Server{Options: runtime.Options{Handler: svc}, OnConnect: func(c *runtime.Conn) { connected <- c }}
	addr := server(t, "unix", srv)
	c, err := rpcnet.Dial(context.Background(), "unix", addr, &rpcnet.DialOptions{Redial: runtime.RedialOptions{Retry: runtime.RetryPolicy{MinDelay: time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	conns = append(conns, <-connected)

	plain := make(chan error, 1)
	go func() { plain <- c.Call(context.Background(), "block", nil, nil) }()
	<-svc.blocked
	conns[0].Close()
	if err := <-plain; !errors.Is(err, runtime.ErrConnectionLost) || !strings.Contains(err.Error(), "may or may not have run") {
		t.Fatalf("plain call on a dropped connection: %v", err)
	}
	if n := svc.blocks.Load(); n != 1 {
		t.Fatalf("the plain call ran %d times", n)
	}

	idem := make(chan error, 1)
	go func() {
		var got string
		idem <- c.CallIdempotent(context.Background(), "block", nil, &got)
	}()
	<-svc.blocked
	conns = append(conns, <-connected)
	conns[1].Close()
	<-svc.blocked // the retry, on a third connection
	close(svc.release)
	if err := <-idem; err != nil {
		t.Fatalf("idempotent call retried: %v", err)
	}
	if n := svc.blocks.Load(); n != 3 {
		t.Fatalf("block ran %d times, want 3 (one plain, the idempotent one twice)", n)
	}
}

// TestReconnectAfterRestart restarts the server on the same Unix socket path:
// the client's next call dials again and succeeds.
func TestReconnectAfterRestart(t *testing.T) {
	rpctest.CheckLeaks(t)
	path := filepath.Join(t.TempDir(), "r.sock")
	ln, err := rpcnet.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	first := &rpcnet.Server{Options: runtime.Options{Handler: newService()}}
	go first.Serve(ln)
	c, err := rpcnet.Dial(context.Background(), "unix", path, &rpcnet.DialOptions{Redial: runtime.RedialOptions{Retry: runtime.RetryPolicy{Attempts: 20, MinDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Call(context.Background(), "echo", []int{1}, nil); err != nil {
		t.Fatal(err)
	}
	first.Close()
	ln2, err := rpcnet.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, ln2, &rpcnet.Server{Options: runtime.Options{Handler: newService()}})
	var got []int
	if err := c.Call(context.Background(), "echo", []int{7}, &got); err != nil || len(got) != 1 || got[0] != 7 {
		t.Fatalf("after the restart: %v, %v", got, err)
	}
}

// TestPeerNeverReads streams to a client that never reads its socket: the
// write timeout disconnects it with a clear error, and the server goes on
// serving others.
func TestPeerNeverReads(t *testing.T) {
	rpctest.CheckLeaks(t)
	connected := make(chan *runtime.Conn, 2)
	srv := &rpcnet.Server{Options: runtime.Options{Handler: newService()}, WriteTimeout: 100 * time.Millisecond,
		OnConnect: func(c *runtime.Conn) { connected <- c }}
	addr := server(t, "tcp", srv)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// No credit: the server sends as fast as the socket takes, until it is full.
	if _, err := nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"count","params":[-1]}` + "\n")); err != nil {
		t.Fatal(err)
	}
	sc := <-connected
	<-sc.Done()
	if err := sc.Err(); err == nil || !strings.Contains(err.Error(), "not reading") {
		t.Fatalf("the connection ended with %v; want the write timeout", err)
	}
	checkServes(t, addr)
}

// TestHalfOpen opens a connection that sends half a message and then nothing,
// like a peer that vanished: IdleTimeout closes it; a connection whose call is
// in flight longer than that is not closed.
func TestHalfOpen(t *testing.T) {
	rpctest.CheckLeaks(t)
	svc := newService()
	connected := make(chan *runtime.Conn, 2)
	srv := &rpcnet.Server{Options: runtime.Options{Handler: svc}, IdleTimeout: 100 * time.Millisecond,
		OnConnect: func(c *runtime.Conn) { connected <- c }}
	addr := server(t, "tcp", srv)

	busy, err := rpcnet.Dial(context.Background(), "tcp", addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyConn := <-connected
	answer := make(chan error, 1)
	go func() { answer <- busy.Call(context.Background(), "block", nil, nil) }()
	<-svc.blocked

	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write([]byte(`{"jsonrpc":"2.0","id":1,"met`))
	half := <-connected
	<-half.Done()
	if err := half.Err(); err == nil || !strings.Contains(err.Error(), "nothing read for") {
		t.Fatalf("the half-open connection ended with %v", err)
	}
	select {
	case <-busyConn.Done():
		t.Fatal("the connection with a call in flight was closed as idle")
	default:
	}
	close(svc.release)
	if err := <-answer; err != nil {
		t.Fatalf("the call in flight: %v", err)
	}
}

func checkServes(t *testing.T, addr string) {
	t.Helper()
	c, err := rpcnet.Dial(context.Background(), "tcp", addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []int
	if err := c.Call(context.Background(), "echo", []int{5}, &got); err != nil || len(got) != 1 {
		t.Fatalf("another client afterwards: %v, %v", got, err)
	}
}

func TestListenStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stale.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if _, err := rpcnet.Listen("unix", path); err == nil || !strings.Contains(err.Error(), "a server is listening") {
		t.Fatalf("Listen on a live socket: %v", err)
	}
	ln.Close() // leaves the file behind, as a crash would
	ln2, err := rpcnet.Listen("unix", path)
	if err != nil {
		t.Fatalf("Listen over a stale socket file: %v", err)
	}
	ln2.Close()
}
