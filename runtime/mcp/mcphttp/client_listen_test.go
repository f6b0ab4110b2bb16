package mcphttp

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// listenGate is in front of a handler: it refuses the first refuse
// subscriptions/listen POSTs after arm with 503, counts the listens, and
// signals acked each time the handler acknowledges one.
type listenGate struct {
	next    http.Handler
	listens atomic.Int64
	refuse  atomic.Int64
	refused atomic.Int64
	acked   chan struct{}
}

func (g *listenGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Method") != "subscriptions/listen" {
		g.next.ServeHTTP(w, r)
		return
	}
	g.listens.Add(1)
	if g.refuse.Add(-1) >= 0 {
		g.refused.Add(1)
		http.Error(w, "replica down", http.StatusServiceUnavailable)
		return
	}
	g.next.ServeHTTP(&ackWriter{ResponseWriter: w, acked: g.acked}, r)
}

// ackWriter signals acked when the acknowledgement of a listen is written.
type ackWriter struct {
	http.ResponseWriter
	acked chan struct{}
}

func (a *ackWriter) Write(p []byte) (int, error) {
	n, err := a.ResponseWriter.Write(p)
	if bytes.Contains(p, []byte("notifications/subscriptions/acknowledged")) {
		defer func() { a.acked <- struct{}{} }()
	}
	return n, err
}

func (a *ackWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// A 2026-07-28 client whose subscriptions/listen stream is lost (the
// connection broke, as when its replica dies) opens it again with backoff,
// through refusals (503), and its handlers hear the updates made on the
// new stream; Close ends it all, with no goroutine left.
func TestClientListenReopened(t *testing.T) {
	rpctest.CheckLeaks(t)
	srv := newFeatureServer()
	h := NewHandler(srv, nil)
	t.Cleanup(func() { h.Close() })
	g := &listenGate{next: h, acked: make(chan struct{}, 8)}
	ts := httptest.NewServer(g)
	t.Cleanup(ts.Close)

	updates := make(chan string, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{MCP: mcpclient.Options{
		ProtocolVersion:   mcp.Version20260728,
		OnResourceUpdated: func(uri string) { updates <- uri },
		Retry:             runtime.RetryPolicy{MinDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe(ctx, featureURI); err != nil {
		t.Fatal(err)
	}
	recv(t, g.acked, "the first acknowledgement")
	srv.ResourceUpdated(featureURI)
	if got := recv(t, updates, "the first update"); got != featureURI {
		t.Fatalf("update of %q", got)
	}

	for round := range 2 {
		g.refuse.Store(int64(3 * round)) // the second time, three refusals first
		before := g.listens.Load()
		ts.CloseClientConnections() // the listen stream drops
		recv(t, g.acked, "the acknowledgement of the re-opened listen")
		if got := g.listens.Load() - before; got != int64(1+3*round) {
			t.Errorf("round %d: %d listens after the drop, want %d", round, got, 1+3*round)
		}
		srv.ResourceUpdated(featureURI)
		if got := recv(t, updates, "the update on the re-opened stream"); got != featureURI {
			t.Fatalf("update of %q", got)
		}
	}
	if n := g.refused.Load(); n != 3 {
		t.Errorf("%d listens refused, want 3", n)
	}
	// Unsubscribing ends the stream; subscribing again opens a new one.
	if err := c.Unsubscribe(ctx, featureURI); err != nil {
		t.Fatal(err)
	}
	// Close ends a client that is trying to open its stream again.
	if err := c.Subscribe(ctx, featureURI); err != nil {
		t.Fatal(err)
	}
	recv(t, g.acked, "the last acknowledgement")
	g.refuse.Store(1 << 40)
	ts.CloseClientConnections()
	c.Close()
}
