package rpctest

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// An in-memory network for tests that run in a testing/synctest bubble
// (NewPipeServer):
// there time is virtual, and goroutines blocked on net.Pipe connections
// (unlike sockets) count as blocked, so a test can let minutes of timeouts
// pass at once and still wait for every goroutine it started.

// pipeListener is a net.Listener whose connections are net.Pipe pairs made
// by dial.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial is an http.Transport's DialContext: it hands the listener the server
// end of a new pipe.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// PipeDialer dials a listener of NewPipeListener; it is a function with the
// DialContext method that dialer interfaces ask for.
type PipeDialer func(ctx context.Context, network, addr string) (net.Conn, error)

// DialContext calls d.
func (d PipeDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return d(ctx, network, addr)
}

// NewPipeListener returns a net.Listener whose connections are net.Pipe
// pairs, and the dialer that makes them, for servers tested in a
// testing/synctest bubble (rpcnet's).
func NewPipeListener() (net.Listener, PipeDialer) {
	l := newPipeListener()
	return l, l.dial
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "127.0.0.1:80" }

// NewPipeServer starts an httptest.Server for h on an in-memory listener;
// its Client dials that listener. configure, when not nil, sets up the
// http.Server before it starts. The server closes when the test ends.
func NewPipeServer(t *testing.T, h http.Handler, configure func(*http.Server)) *httptest.Server {
	t.Helper()
	l := newPipeListener()
	ts := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	if configure != nil {
		configure(ts.Config)
	}
	ts.Start()
	ts.Client().Transport.(*http.Transport).DialContext = l.dial
	t.Cleanup(ts.Close)
	return ts
}

// Stalled is what a connection of StallBodies got: the answer's status and body,
// whether the server then closed the connection, and how long after the start the
// answer came; Err is set when the exchange itself failed.
type Stalled struct {
	Status int
	Body   string
	Closed bool
	After  time.Duration
	Err    error
}

// StallBodies opens n connections through dial, writes on each request (a request
// line and headers announcing a longer body, then the start of that body) and then
// nothing more, as a client sending its body slowly, and reports what each got. In a
// synctest bubble over NewPipeServer, the server's deadlines pass in virtual time.
func StallBodies(dial func(ctx context.Context, network, addr string) (net.Conn, error), n int, request string) []Stalled {
	start := time.Now()
	results := make(chan Stalled, n)
	for range n {
		go func() {
			c, err := dial(context.Background(), "tcp", "")
			if err != nil {
				results <- Stalled{Err: err}
				return
			}
			defer c.Close()
			if _, err := io.WriteString(c, request); err != nil {
				results <- Stalled{Err: err}
				return
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				results <- Stalled{Err: err}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			_, eof := br.ReadByte() // the server closes the connection
			results <- Stalled{Status: resp.StatusCode, Body: string(b), Closed: eof == io.EOF, After: time.Since(start)}
		}()
	}
	out := make([]Stalled, n)
	for i := range out {
		out[i] = <-results
	}
	return out
}

// WantCutAt fails the test unless every stalled connection got 408 with a JSON-RPC
// Invalid Request error and was closed, deadline after the start (within a second).
func WantCutAt(t testing.TB, stalled []Stalled, deadline time.Duration) {
	t.Helper()
	for _, r := range stalled {
		if r.Err != nil || r.Status != http.StatusRequestTimeout || !strings.Contains(r.Body, `"code":-32600`) || !r.Closed {
			t.Fatalf("a stalled body: %+v", r)
		}
		if r.After < deadline || r.After > deadline+time.Second {
			t.Fatalf("a stalled body was cut after %v, want %v", r.After, deadline)
		}
	}
}
