package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// sessionWatch is middleware that records the endpoint each request
// names and the ends of the sessions its initializes started.
type sessionWatch struct {
	mu        sync.Mutex
	endpoints []mcpclient.Endpoint
	ends      chan error
}

func newSessionWatch() *sessionWatch { return &sessionWatch{ends: make(chan error, 8)} }

func (w *sessionWatch) middleware(next mcpclient.Handler) mcpclient.Handler {
	return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
		w.mu.Lock()
		w.endpoints = append(w.endpoints, req.Server)
		w.mu.Unlock()
		res, err := next(ctx, req)
		if err == nil {
			req.OnSessionEnd(func(err error) { w.ends <- err })
		}
		return res, err
	}
}

func (w *sessionWatch) end(t *testing.T) error {
	t.Helper()
	select {
	case err := <-w.ends:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("no session end within 10s")
		return nil
	}
}

func (w *sessionWatch) noEnd(t *testing.T) {
	t.Helper()
	select {
	case err := <-w.ends:
		t.Fatalf("a session ended (%v), none should have", err)
	default:
	}
}

// A legacy session over a server subprocess (DialCommand): its endpoint is
// a pipe, and the session ends with nil when the client closes; only
// initialize registers (OnSessionEnd on another request does nothing).
func TestSessionEndOnClose(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestClientSubprocess$")
	cmd.Env = append(os.Environ(), clientSubprocessEnv+"=1", "GORACE=atexit_sleep_ms=0")
	w := newSessionWatch()
	ctx := context.Background()
	c, err := mcpclient.DialCommand(ctx, cmd, mcpclient.Options{ProtocolVersion: mcp.Version20251125,
		Middleware: []mcpclient.Middleware{w.middleware}})
	if err != nil {
		t.Fatal(err)
	}
	if e := c.Endpoint(); e != (mcpclient.Endpoint{Transport: runtime.TransportPipe}) {
		t.Errorf("Endpoint() = %+v, want a pipe", e)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	for _, e := range w.endpoints {
		if e.Transport != runtime.TransportPipe {
			t.Errorf("a request's Server = %+v, want a pipe", e)
		}
	}
	w.mu.Unlock()
	w.noEnd(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.end(t); err != nil {
		t.Errorf("the session ended with %v on Close, want nil", err)
	}
	w.noEnd(t) // once, though the ping registered too
}

// A connection that ends on its own (the server's end of the pipe closes)
// ends the session with runtime.ErrConnectionLost.
func TestSessionEndOnConnectionLost(t *testing.T) {
	a, b := runtime.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- newClientRealServer(nil).Serve(ctx, a) }()
	w := newSessionWatch()
	c, err := mcpclient.Connect(ctx, b, mcpclient.Options{ProtocolVersion: mcp.Version20251125,
		Middleware: []mcpclient.Middleware{w.middleware}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	<-served
	a.Close()
	if err := w.end(t); !errors.Is(err, runtime.ErrConnectionLost) {
		t.Errorf("the session ended with %v, want ErrConnectionLost", err)
	}
}

// A 2026-07-28 client has no session: nothing registers, nothing ends.
func TestSessionEndModern(t *testing.T) {
	a, b := runtime.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = newClientRealServer(nil).Serve(ctx, a) }()
	w := newSessionWatch()
	c, err := mcpclient.Connect(ctx, b, mcpclient.Options{ProtocolVersion: mcp.Version20260728,
		Middleware: []mcpclient.Middleware{w.middleware}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	w.noEnd(t)
}
