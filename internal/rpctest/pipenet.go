package rpctest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
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
