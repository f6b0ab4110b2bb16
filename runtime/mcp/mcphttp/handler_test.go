package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

func TestMethodRouting(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{DisableLegacySSE: true})
	r := hn.do(http.MethodPut, "{}")
	wantError(t, r, http.StatusMethodNotAllowed, -32600, "null")
	if got := r.header.Get("Allow"); got != "GET, POST, DELETE" {
		t.Errorf("Allow %q", got)
	}
	// 2026-07-28 has no GET stream and no DELETE; without a session they get 405.
	wantError(t, hn.do(http.MethodGet, "", "Accept", "text/event-stream"), http.StatusMethodNotAllowed, -32600, "null")
	wantError(t, hn.do(http.MethodDelete, ""), http.StatusMethodNotAllowed, -32600, "null")
	// Unknown sessions are 404 for every method.
	wantError(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", "nope"), http.StatusNotFound, -32600, "null")
	wantError(t, hn.do(http.MethodDelete, "", "Mcp-Session-Id", "nope"), http.StatusNotFound, -32600, "null")
	wantError(t, hn.post(toolCall(3, "add", `{}`), "Mcp-Session-Id", "nope"), http.StatusNotFound, -32600, "3")
}

// TestDualEraGET: with the HTTP+SSE transport on, a GET without a session id
// opens a 2024-11-05 stream, unless it declares 2026-07-28, whose rules give
// a GET 405: no client of that revision is an HTTP+SSE client.
func TestDualEraGET(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	r := hn.do(http.MethodGet, "", "Accept", "text/event-stream", "MCP-Protocol-Version", mcp.Version20260728)
	wantError(t, r, http.StatusMethodNotAllowed, -32600, "null")
	if got := r.header.Get("Allow"); got != "POST" {
		t.Errorf("Allow %q, want POST", got)
	}
	wantError(t, hn.do(http.MethodDelete, "", "MCP-Protocol-Version", mcp.Version20260728), http.StatusMethodNotAllowed, -32600, "null")
	if n := hn.h.SessionCount(); n != 0 {
		t.Errorf("%d sessions after a 2026-07-28 GET", n)
	}
	// Without the header (a 2024-11-05 client sends none), or with 2024-11-05,
	// the same GET is the HTTP+SSE transport.
	for _, kv := range [][]string{{"Accept", "text/event-stream"}, {"Accept", "text/event-stream", "MCP-Protocol-Version", mcp.Version20241105}} {
		r := hn.do(http.MethodGet, "", kv...)
		if r.status != http.StatusOK || r.resp == nil {
			t.Fatalf("GET %v: %d %s", kv, r.status, r.body)
		}
		ev, err := sse.NewReader(r.resp.Body).Next()
		if err != nil || ev.Type != "endpoint" {
			t.Fatalf("GET %v: first event %+v, %v", kv, ev, err)
		}
		r.resp.Body.Close()
	}
}

// A notifications/cancelled with no session (the Go SDK's 2026-07-28 client
// sends one after closing a call's stream) is accepted and ignored, while
// any other session-less legacy message is still refused.
func TestSessionlessCancellation(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	r := hn.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"gone"}}`)
	if r.status != http.StatusAccepted || r.body != "" {
		t.Fatalf("session-less cancellation: %d %q, want 202 and no body", r.status, r.body)
	}
	wantError(t, hn.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusBadRequest, -32600, "null")
	wantError(t, hn.post(`{"jsonrpc":"2.0","id":8,"method":"notifications/cancelled","params":{"requestId":7}}`), http.StatusBadRequest, -32600, "8")
}

// Bad bodies get the status and JSON-RPC error they deserve, and the server
// keeps serving: after each, the session still answers.
func TestMalformedBodies(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{MaxBodyBytes: 4096})
	sid := hn.initialize(mcp.Version20251125)
	ping := `{"jsonrpc":"2.0","id":99,"method":"ping"}`
	deep := strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200)
	for _, tc := range []struct {
		name         string
		body         string
		kv           []string
		status, code int
		id           string
	}{
		{"invalid JSON", `{"jsonrpc":"2.0","id":1,"method":`, nil, 400, -32700, "null"},
		{"invalid JSON no session", `{"jsonrpc":"2.0",`, []string{"Mcp-Session-Id", ""}, 400, -32700, "null"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\xff\"}", nil, 400, -32700, "null"},
		{"invalid UTF-8 no session", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\xff\"}", []string{"Mcp-Session-Id", ""}, 400, -32700, "null"},
		{"not an object", `42`, nil, 400, -32600, "null"},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":5}`, nil, 400, -32600, "3"},
		{"bad version", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, nil, 400, -32600, "4"},
		{"params not structured", `{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}`, nil, 400, -32600, "5"},
		{"too deep", `{"jsonrpc":"2.0","id":6,"method":"ping","params":` + deep + `}`, nil, 400, -32600, "null"},
		{"too large", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"` + strings.Repeat("x", 5000) + `"}}`, nil, 413, -32600, "null"},
		{"not JSON content", `{"jsonrpc":"2.0","id":8,"method":"ping"}`, []string{"Content-Type", "text/plain"}, 415, -32600, "null"},
		{"not acceptable", `{"jsonrpc":"2.0","id":9,"method":"ping"}`, []string{"Accept", "text/html"}, 406, -32600, "null"},
		{"batch in 2025-11-25", `[` + ping + `]`, nil, 400, -32600, "null"},
		{"no session", ping, []string{"Mcp-Session-Id", ""}, 400, -32600, "99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := append([]string{"Mcp-Session-Id", sid}, tc.kv...)
			wantError(t, hn.post(tc.body, kv...), tc.status, tc.code, tc.id)
			wantJSON(t, hn.post(ping, "Mcp-Session-Id", sid), 200, `{"jsonrpc":"2.0","id":99,"result":{}}`)
		})
	}
}

func TestGracefulShutdown(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	legacy, modern := hn.startSlowCalls(sid)

	stream := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
	done := make(chan error, 1)
	go func() { done <- hn.h.Shutdown(context.Background()) }()
	// The standalone stream ends; new requests are refused.
	withinTime(t, "standalone stream end", func() { events(t, stream) })
	eventually(t, hn.h, "shutdown refuses requests", func() bool { return hn.h.closing() })
	wantError(t, hn.post(toolCall(3, "add", `{"a":1,"b":2}`), "Mcp-Session-Id", sid), 503, -32000, "null")
	wantError(t, hn.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`), 503, -32000, "null")
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v with calls in flight", err)
	default:
	}
	// The calls in flight finish, and get their responses.
	hn.release <- struct{}{}
	hn.release <- struct{}{}
	wantJSON(t, recv(t, legacy, "legacy reply"), 200, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"slow\":true}"}],"structuredContent":{"slow":true}}}`)
	if r := recv(t, modern, "modern reply"); r.status != 200 || !strings.Contains(r.body, `"slow":true`) {
		t.Fatalf("modern reply: %d %s", r.status, r.body)
	}
	if err := recv(t, done, "Shutdown"); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if n := hn.h.SessionCount(); n != 0 {
		t.Errorf("SessionCount %d after Shutdown", n)
	}
}

func TestShutdownCancelsAtDeadline(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20250618)
	legacy, modern := hn.startSlowCalls(sid)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := hn.h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want deadline exceeded", err)
	}
	recv(t, hn.cancelled, "a cancellation")
	recv(t, hn.cancelled, "a cancellation")
	wantError(t, recv(t, legacy, "legacy reply"), 503, -32000, "null")
	wantError(t, recv(t, modern, "modern reply"), 503, -32000, "2")
}

func TestMaxSessions(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{MaxSessions: 1})
	sid := hn.initialize(mcp.Version20251125)
	init := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
	wantError(t, hn.post(init), 503, -32000, "7")
	hn.endSession(sid)
	hn.initialize(mcp.Version20251125)
}

// A Handler mounted beside other routes, shut down with its server.
func ExampleHandler() {
	srv := mcpserver.New(mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	srv.AddTools(mcpserver.Tool{
		Name:        "add",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`),
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ A, B int }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return fmt.Appendf(nil, `{"sum":%d}`, in.A+in.B), nil
		},
	})
	h := NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	// Local servers listen on loopback only.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	go hs.Serve(ln)

	// … serve until it is time to stop, then stop both: http.Server.Shutdown
	// does not end event streams, nor wait for calls that outlived their
	// HTTP request; Handler.Shutdown does.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go hs.Shutdown(ctx)
	if err := h.Shutdown(ctx); err != nil {
		log.Print(err)
	}
}

// BenchmarkHandler measures tools/call over HTTP in both eras against a
// hand-written net/http server doing the same JSON work.
func BenchmarkHandler(b *testing.B) {
	h := NewHandler(benchServer(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`), nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()
	ref := httptest.NewServer(http.HandlerFunc(referenceAdd))
	defer ref.Close()
	client := ts.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64

	run := func(b *testing.B, url, body string, kv ...string) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for i := 0; i+1 < len(kv); i += 2 {
					req.Header.Set(kv[i], kv[i+1])
				}
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"sum":3`)) {
					b.Fatalf("%d %s", resp.StatusCode, out)
				}
			}
		})
	}
	b.Run("reference", func(b *testing.B) {
		run(b, ref.URL, toolCall(1, "add", `{"a":1,"b":2}`))
	})
	b.Run("legacy", func(b *testing.B) {
		sid := benchInitialize(b, client, ts.URL)
		run(b, ts.URL, toolCall(1, "add", `{"a":1,"b":2}`), "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
	})
	b.Run("modern", func(b *testing.B) {
		run(b, ts.URL, modernCall(1, "add", `{"a":1,"b":2}`), modernHeaders("tools/call", "add")...)
	})
	// A call that reports progress once: its response becomes an event
	// stream (so the call runs on a goroutine of its own, as that stream
	// may end before its call).
	b.Run("legacy-progress", func(b *testing.B) {
		sid := benchInitialize(b, client, ts.URL)
		run(b, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"progress":true},"_meta":{"progressToken":1}}}`,
			"Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
	})
}

// BenchmarkHandlerInProcess measures the handler alone, without sockets,
// which on a busy machine are most of the noise.
func BenchmarkHandlerInProcess(b *testing.B) {
	h, sid := recordedSession(b, nil)
	run := func(b *testing.B, hd http.Handler, body string, kv ...string) {
		b.ReportAllocs()
		for b.Loop() {
			r := httptest.NewRequest("POST", "/", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			for i := 0; i < len(kv); i += 2 {
				r.Header.Set(kv[i], kv[i+1])
			}
			w := httptest.NewRecorder()
			hd.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatal(w.Code, w.Body.String())
			}
		}
	}
	b.Run("reference", func(b *testing.B) { run(b, http.HandlerFunc(referenceAdd), toolCall(1, "add", `{"a":1,"b":2}`)) })
	b.Run("legacy", func(b *testing.B) { run(b, h, toolCall(1, "add", `{"a":1,"b":2}`), "Mcp-Session-Id", sid) })
	b.Run("modern", func(b *testing.B) {
		run(b, h, modernCall(1, "add", `{"a":1,"b":2}`), modernHeaders("tools/call", "add")...)
	})
}

// benchServer returns a server with one tool, add, whose input schema is
// schema.
func benchServer(schema string) *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "b", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "add", InputSchema: json.RawMessage(schema), Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in struct {
			A, B     int64
			Progress bool
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		if in.Progress {
			mcpserver.Progress(ctx, 1, 1, "")
		}
		return fmt.Appendf(nil, `{"sum":%d}`, in.A+in.B), nil
	}})
	return srv
}

func benchInitialize(b *testing.B, client *http.Client, url string) string {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Header.Get("Mcp-Session-Id")
}

// referenceAdd is the hand-written server: decode the request, add, encode
// the same result the MCP server sends.
func referenceAdd(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Arguments struct{ A, B int64 } `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	sum := fmt.Appendf(nil, `{"sum":%d}`, req.Params.Arguments.A+req.Params.Arguments.B)
	text, _ := json.Marshal(string(sum))
	out := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"structuredContent":%s}}`, req.ID, text, sum)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(out)))
	w.Write(out)
}
