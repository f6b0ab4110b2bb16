package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// failInitialized answers the next notifications/initialized 503 once
// armed, and remembers the session id of the last GET.
type failInitialized struct {
	next  http.Handler
	armed atomic.Bool
	mu    sync.Mutex
	sid   string
	// deleted, if not nil, hears each DELETE once the handler has served it
	// (up to its buffer).
	deleted chan struct{}
}

func (f *failInitialized) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		f.mu.Lock()
		f.sid = r.Header.Get("Mcp-Session-Id")
		f.mu.Unlock()
	}
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct{ Method string }
		_ = json.Unmarshal(body, &m)
		if m.Method == "notifications/initialized" && f.armed.CompareAndSwap(true, false) {
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
	}
	f.next.ServeHTTP(w, r)
	if r.Method == http.MethodDelete && f.deleted != nil {
		select {
		case f.deleted <- struct{}{}:
		default:
		}
	}
}

func (f *failInitialized) lastGET() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sid
}

// A renewal that fails after its initialize succeeded (a store down
// answers 503 to notifications/initialized) leaves a session on the
// server, whose standalone stream the client opened. The next attempt
// starts another: the client ends the first (DELETE) and stops reading
// its stream, so each notification reaches the application once.
func TestClientRenewalDropsHalfMadeSession(t *testing.T) {
	rpctest.CheckLeaks(t)
	srv := newFeatureServer()
	h := NewHandler(srv, &Options{RetryInterval: 5 * time.Millisecond})
	t.Cleanup(func() { h.Close() })
	fi := &failInitialized{next: h, deleted: make(chan struct{}, 8)}
	ts := httptest.NewServer(fi)
	t.Cleanup(ts.Close)

	logs := make(chan string, 16)
	renewed := make(chan error, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
		ProtocolVersion:  mcp.Version20251125,
		OnSessionExpired: func(err error) { renewed <- err },
		OnLog: func(m mcp.LogMessage) {
			var s string
			_ = json.Unmarshal(m.Data, &s)
			logs <- s
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetLogLevel(ctx, "info"); err != nil {
		t.Fatal(err)
	}
	srv.Log(mcp.LevelInfo, "t", "first") // the standalone stream is open once heard
	if got := recv(t, logs, "the first log message"); got != "first" {
		t.Fatalf("got %q", got)
	}
	// The server ends the session; the renewal's first attempt fails after
	// its initialize.
	fi.armed.Store(true)
	req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", fi.lastGET())
	req.Header.Set("Mcp-Protocol-Version", mcp.Version20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for {
		err := recv(t, renewed, "the renewal")
		if err == nil {
			break
		}
		t.Logf("a renewal attempt failed: %v", err)
	}
	if fi.armed.Load() {
		t.Fatal("the renewal did not send notifications/initialized")
	}
	srv.Log(mcp.LevelInfo, "t", "after")
	srv.Log(mcp.LevelInfo, "t", "end")
	var got []string
	for len(got) == 0 || got[len(got)-1] != "end" {
		got = append(got, recv(t, logs, "the log messages after the renewal"))
	}
	if len(got) != 2 || got[0] != "after" {
		t.Errorf("after the renewal the client heard %q, want [after end]", got)
	}
	// Two DELETEs: the test's, then the client's of the half-made session,
	// which the client may send after the renewal is reported.
	for i := range 2 {
		select {
		case <-fi.deleted:
		case <-ctx.Done():
			t.Fatalf("%d DELETE requests served, want 2: the client never ended the half-made session", i)
		}
	}
	if n := h.SessionCount(); n != 1 {
		t.Errorf("%d sessions on the server, want the client's one: the half-made one is left", n)
	}
}
