package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

const clientSessionID = "sess-0123"

// clientLegacy is a session-based (2025-11-25) fake server.
type clientLegacy struct {
	*clientFake
	clientLegacyConfig
	gone atomic.Bool // the session ended: 404 from now on
}

// clientLegacyConfig configures a clientLegacy.
type clientLegacyConfig struct {
	bareErrors bool // a request without session gets 400 with no JSON-RPC body
	deleteSts  int  // the status DELETE gets (200 when 0)
	tool       func(w http.ResponseWriter, r *http.Request, m clientTestMsg)
	resume     func(w http.ResponseWriter, r *http.Request) // GET with Last-Event-ID
}

// clientAnswerTool answers tools/call with clientToolResult as JSON.
func clientAnswerTool(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
	clientWriteJSON(w, http.StatusOK, clientResult(m, clientToolResult))
}

func newClientLegacy(t *testing.T, cfg clientLegacyConfig) *clientLegacy {
	l := &clientLegacy{clientLegacyConfig: cfg}
	bareErrors := cfg.bareErrors
	l.clientFake = newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		sid := r.Header.Get("Mcp-Session-Id")
		switch {
		case sid == "" && m.Method != "initialize":
			if bareErrors {
				http.Error(w, "Bad Request: no session", http.StatusBadRequest)
				return
			}
			clientWriteJSON(w, http.StatusBadRequest, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id header is required"}}`)
		case sid != "" && (sid != clientSessionID || l.gone.Load()):
			http.Error(w, "session not found", http.StatusNotFound)
		case r.Method == http.MethodDelete:
			l.gone.Store(true)
			w.WriteHeader(max(l.deleteSts, http.StatusOK))
		case r.Method == http.MethodGet:
			if l.resume == nil || r.Header.Get("Last-Event-Id") == "" {
				http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
				return
			}
			l.resume(w, r)
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", clientSessionID)
			clientWriteJSON(w, http.StatusOK, clientResult(m, clientInitResult))
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case m.Method == "tools/call":
			l.tool(w, r, m)
		case m.Method == "ping":
			clientWriteJSON(w, http.StatusOK, clientResult(m, `{}`))
		default:
			clientWriteJSON(w, http.StatusOK, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
		}
	})
	return l
}

// checkSessionHeaders fails unless every request after initialize carries
// the session id and the negotiated version.
func (l *clientLegacy) checkSessionHeaders(t *testing.T) {
	t.Helper()
	inSession := false
	for _, s := range l.requests() {
		if s.Msg.Method == "initialize" {
			inSession = true
			if s.Header.Get("Mcp-Session-Id") != "" {
				t.Error("initialize carries a session id")
			}
			continue
		}
		if !inSession {
			continue
		}
		if got := s.Header.Get("Mcp-Session-Id"); got != clientSessionID {
			t.Errorf("%s %s: Mcp-Session-Id = %q", s.Method, s.Msg.Method, got)
		}
		if got := s.Header.Get("Mcp-Protocol-Version"); got != mcp.Version20251125 {
			t.Errorf("%s %s: MCP-Protocol-Version = %q", s.Method, s.Msg.Method, got)
		}
		if _, ok := s.Header["Mcp-Method"]; ok {
			t.Errorf("%s %s: a legacy request carries Mcp-Method", s.Method, s.Msg.Method)
		}
	}
}

func TestClientLegacySession(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(map[bool]string{false: "json-error", true: "bare-400"}[bare], func(t *testing.T) {
			rpctest.CheckLeaks(t)
			l := newClientLegacy(t, clientLegacyConfig{bareErrors: bare, tool: clientAnswerTool})
			ctx := context.Background()
			c, err := mcphttpclient.Connect(ctx, l.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.Modern() || c.ProtocolVersion() != mcp.Version20251125 || c.ServerInfo().Name != "fake-legacy" {
				t.Errorf("connected with %s to %v", c.ProtocolVersion(), c.ServerInfo())
			}
			var sum clientSum
			if err := c.CallTool(ctx, "add", nil, &sum); err != nil || sum.Sum != 3 {
				t.Errorf("CallTool = %v, %v", sum, err)
			}
			if err := c.Ping(ctx); err != nil {
				t.Error(err)
			}
			if n := len(l.find(http.MethodPost, "notifications/initialized")); n != 1 {
				t.Errorf("%d notifications/initialized", n)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if del := l.find(http.MethodDelete, ""); len(del) != 1 {
				t.Errorf("%d DELETEs on Close, want 1", len(del))
			}
			l.checkSessionHeaders(t)
		})
	}
}

func TestClientLegacyDeleteNotAllowed(t *testing.T) {
	rpctest.CheckLeaks(t)
	l := newClientLegacy(t, clientLegacyConfig{deleteSts: http.StatusMethodNotAllowed})
	c, err := mcphttpclient.Connect(context.Background(), l.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l.find(http.MethodPost, "server/discover")); n != 0 {
		t.Errorf("a legacy ProtocolVersion still probed with server/discover (%d)", n)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close with DELETE answered 405: %v", err)
	}
}

// With NoReinitialize, a session the server ended stays ended: every call
// fails with mcphttpclient.ErrSessionExpired, and nothing more is sent.
func TestClientSessionExpired(t *testing.T) {
	rpctest.CheckLeaks(t)
	l := newClientLegacy(t, clientLegacyConfig{tool: clientAnswerTool})
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, l.URL, &mcphttpclient.Options{MCP: mcpclient.Options{NoReinitialize: true}})
	if err != nil {
		t.Fatal(err)
	}
	l.gone.Store(true)
	err = c.CallTool(ctx, "add", nil, nil)
	if !errors.Is(err, mcphttpclient.ErrSessionExpired) {
		t.Fatalf("err = %v, want mcphttpclient.ErrSessionExpired", err)
	}
	posts := len(l.find(http.MethodPost, ""))
	if err := c.Ping(ctx); !errors.Is(err, mcphttpclient.ErrSessionExpired) {
		t.Errorf("second call: %v", err)
	}
	if n := len(l.find(http.MethodPost, "")); n != posts {
		t.Errorf("a call on an expired session was sent")
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if n := len(l.find(http.MethodDelete, "")); n != 0 {
		t.Errorf("DELETE sent for an expired session")
	}
}

// TestClientLegacyResume drops the response stream twice, once cleanly and
// once by aborting the connection; the client resumes after each with
// Last-Event-ID and sees every message exactly once.
func TestClientLegacyResume(t *testing.T) {
	rpctest.CheckLeaks(t)
	var (
		mu            sync.Mutex
		token, callID json.RawMessage
	)
	var cfg clientLegacyConfig
	cfg.tool = func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		mu.Lock()
		token, callID = clientProgressTokenOf(m), m.ID
		mu.Unlock()
		ev := clientEvents(w)
		ev("s1-0", "5", "", "") // priming: id, retry, empty data
		ev("s1-1", "", "", clientProgress(token, 1))
		// The handler returns: the stream ends without the response.
	}
	cfg.resume = func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.Header.Get("Last-Event-Id") {
		case "s1-1":
			ev := clientEvents(w)
			ev("s1-2", "", "", clientProgress(token, 2))
			panic(http.ErrAbortHandler) // the connection breaks
		case "s1-2":
			ev := clientEvents(w)
			ev("s1-3", "", "", clientProgress(token, 3))
			ev("s1-4", "", "", `{"jsonrpc":"2.0","id":`+string(callID)+`,"result":`+clientToolResult+`}`)
		default:
			http.Error(w, "unknown event id", http.StatusBadRequest)
		}
	}
	l := newClientLegacy(t, cfg)
	ctx := context.Background()
	c := clientConnect(ctx, t, l.URL, nil)
	var got []float64
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "progress", OnProgress: func(p mcp.ProgressNotification) {
		got = append(got, p.Progress)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []float64{1, 2, 3}) || string(res.StructuredContent) != `{"sum":3}` {
		t.Errorf("progress %v, result %s", got, res.StructuredContent)
	}
	var ids []string
	for _, g := range clientResumes(l.find(http.MethodGet, "")) {
		ids = append(ids, g.Header.Get("Last-Event-Id"))
		if g.Header.Get("Accept") != "text/event-stream" {
			t.Errorf("resume GET Accept = %q", g.Header.Get("Accept"))
		}
	}
	if !slices.Equal(ids, []string{"s1-1", "s1-2"}) {
		t.Errorf("resumed with Last-Event-ID %v", ids)
	}
	l.checkSessionHeaders(t)
}

// TestClientLegacyResumeGivesUp: a server that never resumes the stream
// makes the call fail after a bounded number of attempts.
func TestClientLegacyResumeGivesUp(t *testing.T) {
	rpctest.CheckLeaks(t)
	l := newClientLegacy(t, clientLegacyConfig{
		tool: func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
			clientEvents(w)("e0", "1", "", "")
		},
		resume: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		},
	})
	c := clientConnect(context.Background(), t, l.URL, nil)
	err := c.CallTool(context.Background(), "add", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v", err)
	}
	if n := len(clientResumes(l.find(http.MethodGet, ""))); n != 5 {
		t.Errorf("%d resume attempts, want 5", n)
	}
}

// TestClientLegacyResumeEnded: a server that answers the resume with 204 (the
// stream ended, nothing is left) makes the call fail at once, without more
// attempts.
func TestClientLegacyResumeEnded(t *testing.T) {
	rpctest.CheckLeaks(t)
	l := newClientLegacy(t, clientLegacyConfig{
		tool: func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
			clientEvents(w)("e0", "1", "", "")
		},
		resume: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		},
	})
	c := clientConnect(context.Background(), t, l.URL, nil)
	err := c.CallTool(context.Background(), "add", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "204") {
		t.Fatalf("err = %v", err)
	}
	if n := len(clientResumes(l.find(http.MethodGet, ""))); n != 1 {
		t.Errorf("%d resume attempts, want 1", n)
	}
}

// clientResumes returns the GETs that resume a stream, leaving out those
// opening the standalone stream (a Client that hears the messages not
// related to any request opens it).
func clientResumes(gets []clientSeen) []clientSeen {
	var out []clientSeen
	for _, g := range gets {
		if g.Header.Get("Last-Event-Id") != "" {
			out = append(out, g)
		}
	}
	return out
}

func TestClientLegacyCancel(t *testing.T) {
	rpctest.CheckLeaks(t)
	l := newClientLegacy(t, clientLegacyConfig{tool: func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		ev := clientEvents(w)
		ev("c-0", "", "", "")
		ev("c-1", "", "", clientProgress(clientProgressTokenOf(m), 1))
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}})
	c := clientConnect(context.Background(), t, l.URL, nil)
	cancelOnProgress(t, c)
	calls := l.find(http.MethodPost, "tools/call")
	cancels := l.find(http.MethodPost, "notifications/cancelled")
	if len(calls) != 1 || len(cancels) != 1 {
		t.Fatalf("%d calls, %d notifications/cancelled", len(calls), len(cancels))
	}
	if got := string(cancels[0].Msg.Params["requestId"]); got != string(calls[0].Msg.ID) {
		t.Errorf("cancelled requestId %s, want %s", got, calls[0].Msg.ID)
	}
	if cancels[0].Msg.param("reason") == "" {
		t.Error("no reason")
	}
	l.checkSessionHeaders(t)
}
