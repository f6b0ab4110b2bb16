package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// The client's session life: a new session when the server ends the old
// one (it restarted, here), the standalone stream resumed after a drop.

// swapHandler serves with the handler of the moment: swapping it is a
// server restart on the same address.
type swapHandler struct{ cur atomic.Pointer[Handler] }

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.cur.Load().ServeHTTP(w, r) }

// lifeServer is a feature server (a resource to subscribe to) with a tool,
// "hold", that reports progress and then runs until its context ends.
func lifeServer(held chan<- struct{}) *mcpserver.Server {
	srv := newFeatureServer()
	srv.AddTools(mcpserver.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Progress(ctx, 1, 2, "holding")
			held <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	return srv
}

// After the server restarts (a new handler on the same address, the old one
// closed), the client starts a new session by itself and says so; the call
// that was in flight fails with mcphttpclient.ErrSessionExpired; the subscription is back
// (an update on the new server reaches the client) and calls work again.
func TestClientReinitializeAfterRestart(t *testing.T) {
	for _, tc := range []struct{ name, transport, version string }{
		{"streamable-2025-11-25", "streamable", mcp.Version20251125},
		{"streamable-2025-03-26", "streamable", mcp.Version20250326},
		{"sse-2024-11-05", "sse", mcp.Version20241105},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			held := make(chan struct{}, 4)
			srv1 := lifeServer(held)
			opts := &Options{RetryInterval: 5 * time.Millisecond}
			h1 := NewHandler(srv1, opts)
			var sw swapHandler
			sw.cur.Store(h1)
			ts := httptest.NewServer(&sw)
			t.Cleanup(ts.Close)
			t.Cleanup(func() { h1.Close() })

			updates := make(chan string, 8)
			renewed := make(chan error, 8)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: tc.transport, MCP: mcpclient.Options{
				ProtocolVersion:   tc.version,
				OnResourceUpdated: func(uri string) { updates <- uri },
				OnSessionExpired:  func(err error) { renewed <- err },
				Retry:             runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Subscribe(ctx, featureURI); err != nil {
				t.Fatal(err)
			}
			srv1.ResourceUpdated(featureURI)
			if uri := recv(t, updates, "the update before the restart"); uri != featureURI {
				t.Fatalf("update for %q", uri)
			}

			inFlight := make(chan error, 1)
			go func() {
				_, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "hold", OnProgress: func(mcp.ProgressNotification) {}})
				inFlight <- err
			}()
			recv(t, held, "the call in flight")

			srv2 := lifeServer(held)
			h2 := NewHandler(srv2, opts)
			t.Cleanup(func() { h2.Close() })
			sw.cur.Store(h2)
			h1.Close() // the old server's streams end; it forgets its sessions

			err = recv(t, inFlight, "the end of the call in flight")
			if !errors.Is(err, mcphttpclient.ErrSessionExpired) || !errors.Is(err, runtime.ErrConnectionLost) {
				t.Errorf("the call in flight: %v, want mcphttpclient.ErrSessionExpired and ErrConnectionLost", err)
			}
			if err := recv(t, renewed, "OnSessionExpired"); err != nil {
				t.Fatalf("OnSessionExpired(%v)", err)
			}
			if n := h2.SessionCount(); n != 1 {
				t.Fatalf("the new server has %d sessions, want 1", n)
			}
			srv2.ResourceUpdated(featureURI)
			if uri := recv(t, updates, "the update after the restart"); uri != featureURI {
				t.Fatalf("update for %q", uri)
			}
			if _, err := c.ReadResource(ctx, featureURI); err != nil {
				t.Fatalf("a call on the new session: %v", err)
			}
			select {
			case err := <-renewed:
				t.Fatalf("a second renewal: %v", err)
			default:
			}
		})
	}
}

// lastEventIDs records the Last-Event-ID of every GET.
type lastEventIDs struct {
	next http.Handler
	mu   sync.Mutex
	ids  []string
}

func (l *lastEventIDs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		l.mu.Lock()
		l.ids = append(l.ids, r.Header.Get("Last-Event-ID"))
		l.mu.Unlock()
	}
	l.next.ServeHTTP(w, r)
}

func (l *lastEventIDs) resumed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range l.ids {
		if id != "" {
			return true
		}
	}
	return false
}

// The standalone GET stream, dropped by the network, is resumed with
// Last-Event-ID: an update sent while it was down reaches the client's
// handler, once, and the session is the same.
func TestClientStandaloneResume(t *testing.T) {
	rpctest.CheckLeaks(t)
	srv := newFeatureServer()
	h := NewHandler(srv, &Options{RetryInterval: 5 * time.Millisecond})
	t.Cleanup(func() { h.Close() })
	rec := &lastEventIDs{next: h}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)

	updates := make(chan string, 8)
	renewed := make(chan error, 1)
	logs := make(chan mcp.LogMessage, 8)
	changes := make(chan string, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
		ProtocolVersion:   mcp.Version20251125,
		OnResourceUpdated: func(uri string) { updates <- uri },
		OnSessionExpired:  func(err error) { renewed <- err },
		OnLog:             func(m mcp.LogMessage) { logs <- m },
		OnListChanged:     func(method string) { changes <- method },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Subscribe(ctx, featureURI); err != nil {
		t.Fatal(err)
	}
	srv.ResourceUpdated(featureURI)
	recv(t, updates, "the first update")

	ts.CloseClientConnections() // the standalone stream drops
	srv.ResourceUpdated(featureURI)
	recv(t, updates, "the update sent across the drop")
	if !rec.resumed() {
		t.Error("no GET carried Last-Event-ID")
	}
	srv.ResourceUpdated(featureURI)
	recv(t, updates, "the update after the resume")
	// The stream carries the other messages of no request too.
	if err := c.SetLogLevel(ctx, "info"); err != nil {
		t.Fatal(err)
	}
	srv.Log(mcp.LevelInfo, "t", "hello")
	if m := recv(t, logs, "a log message"); m.Level != string(mcp.LevelInfo) {
		t.Errorf("log message %+v", m)
	}
	srv.AddTools(mcpserver.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	if m := recv(t, changes, "tools/list_changed"); m != "notifications/tools/list_changed" {
		t.Errorf("list change %q", m)
	}
	select {
	case uri := <-updates:
		t.Errorf("an update came twice (%s)", uri)
	case err := <-renewed:
		t.Errorf("a new session (%v) where the old one was resumed", err)
	case m := <-logs:
		t.Errorf("a second log message %+v", m)
	default:
	}
	if n := h.SessionCount(); n != 1 {
		t.Errorf("%d sessions, want 1", n)
	}
}

// NoStandaloneStream: a legacy session opens no GET stream.
func TestClientNoStandaloneStream(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := NewHandler(newFeatureServer(), nil)
	t.Cleanup(func() { h.Close() })
	rec := &lastEventIDs{next: h}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", NoStandaloneStream: true,
		MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125, OnResourceUpdated: func(string) {}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe(ctx, featureURI); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.ids) != 0 {
		t.Errorf("%d GETs, want none", len(rec.ids))
	}
}

// A client that holds no stream (NoStandaloneStream) learns of the restart
// from its next call, which the new server answers: the call's 404 meant
// it never ran, so it is tried again on the new session, transparently.
func TestClientReinitializeOnCall(t *testing.T) {
	rpctest.CheckLeaks(t)
	held := make(chan struct{}, 1)
	h1 := NewHandler(lifeServer(held), nil)
	var sw swapHandler
	sw.cur.Store(h1)
	ts := httptest.NewServer(&sw)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h1.Close() })
	renewed := make(chan error, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", NoStandaloneStream: true, MCP: mcpclient.Options{
		ProtocolVersion:  mcp.Version20251125,
		OnSessionExpired: func(err error) { renewed <- err },
		Retry:            runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h2 := NewHandler(lifeServer(held), nil)
	t.Cleanup(func() { h2.Close() })
	sw.cur.Store(h2)
	h1.Close()
	if _, err := c.ReadResource(ctx, featureURI); err != nil {
		t.Fatalf("the first call after the restart: %v", err)
	}
	if err := recv(t, renewed, "OnSessionExpired"); err != nil {
		t.Fatalf("OnSessionExpired(%v)", err)
	}
	if n := h2.SessionCount(); n != 1 {
		t.Fatalf("the new server has %d sessions, want 1", n)
	}
}

// A 2024-11-05 HTTP+SSE stream that breaks is opened again with backoff:
// while the server refuses it, each attempt is reported and the next comes
// later; once it accepts, the client has a new session.
func TestClientSSEReconnectBackoff(t *testing.T) {
	rpctest.CheckLeaks(t)
	held := make(chan struct{}, 1)
	h1 := NewHandler(lifeServer(held), nil)
	var sw swapHandler
	sw.cur.Store(h1)
	var refuse atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && refuse.Add(-1) >= 0 {
			http.Error(w, "restarting", http.StatusServiceUnavailable)
			return
		}
		sw.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h1.Close() })
	renewed := make(chan error, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "sse", MCP: mcpclient.Options{
		ProtocolVersion:  mcp.Version20241105,
		OnSessionExpired: func(err error) { renewed <- err },
		Retry:            runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h2 := NewHandler(lifeServer(held), nil)
	t.Cleanup(func() { h2.Close() })
	refuse.Store(2)
	sw.cur.Store(h2)
	h1.Close() // ends the stream
	for i := range 2 {
		if err := recv(t, renewed, "a refused attempt"); !errors.Is(err, mcphttpclient.ErrSessionExpired) {
			t.Fatalf("attempt %d: OnSessionExpired(%v), want an error wrapping mcphttpclient.ErrSessionExpired", i+1, err)
		}
	}
	if err := recv(t, renewed, "the new session"); err != nil {
		t.Fatalf("OnSessionExpired(%v)", err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("ping on the new session: %v", err)
	}
	if n := h2.SessionCount(); n != 1 {
		t.Fatalf("the new server has %d sessions, want 1", n)
	}
}

// While the server refuses every new session (503 to initialize), the
// client keeps trying, each attempt reported; a call waits for the attempt
// under way and then fails (its retries spent, not forever); Close ends the
// attempts.
func TestClientRenewalRefused(t *testing.T) {
	rpctest.CheckLeaks(t)
	held := make(chan struct{}, 1)
	h1 := NewHandler(lifeServer(held), nil)
	var sw swapHandler
	sw.cur.Store(h1)
	var down atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() && r.Header.Get("Mcp-Session-Id") == "" { // initialize
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		sw.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h1.Close() })
	renewed := make(chan error, 64)
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", NoStandaloneStream: true, MCP: mcpclient.Options{
		ProtocolVersion:  mcp.Version20251125,
		OnSessionExpired: func(err error) { renewed <- err },
		Retry:            runtime.RetryPolicy{Attempts: 2, MinDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond},
	}})
	if err != nil {
		t.Fatal(err)
	}
	h2 := NewHandler(lifeServer(held), nil) // restarted: the session is unknown (404)
	t.Cleanup(func() { h2.Close() })
	down.Store(true)
	sw.cur.Store(h2)
	err = c.Ping(ctx)
	if !errors.Is(err, mcphttpclient.ErrSessionExpired) {
		t.Fatalf("ping while no session can be made: %v, want mcphttpclient.ErrSessionExpired", err)
	}
	for range 2 {
		if err := recv(t, renewed, "a failed attempt"); !errors.Is(err, mcphttpclient.ErrSessionExpired) {
			t.Fatalf("OnSessionExpired(%v), want an error wrapping mcphttpclient.ErrSessionExpired", err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
