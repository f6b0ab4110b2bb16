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
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// harness is a Handler served on a real socket, with tools the tests steer
// through channels.
type harness struct {
	t   *testing.T
	h   *Handler
	ts  *httptest.Server
	url string

	started   chan string   // a blocking tool started (its "key" argument)
	release   chan struct{} // lets a blocking tool go on, once per receive
	cancelled chan string   // a blocking tool saw its context end
	closed    chan bool     // what mcp.CloseStream returned
}

func newHarness(t *testing.T, opts *Options) *harness {
	t.Helper()
	hn := &harness{
		t:         t,
		started:   make(chan string, 100),
		release:   make(chan struct{}, 100),
		cancelled: make(chan string, 100),
		closed:    make(chan bool, 100),
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTools(hn.tools()...)
	hn.h = NewHandler(srv, opts)
	hn.ts = httptest.NewServer(hn.h)
	hn.url = hn.ts.URL + "/mcp"
	t.Cleanup(func() {
		hn.h.Close()
		hn.ts.Close()
	})
	return hn
}

type hnArgs struct {
	A, B int64
	N    int
	Key  string
}

func hnParse(raw json.RawMessage) hnArgs {
	var a hnArgs
	_ = json.Unmarshal(raw, &a)
	return a
}

func (hn *harness) tools() []mcp.Tool {
	obj := json.RawMessage(`{"type":"object"}`)
	wait := func(ctx context.Context, key string) error {
		hn.started <- key
		select {
		case <-hn.release:
			return nil
		case <-ctx.Done():
			hn.cancelled <- key
			return ctx.Err()
		}
	}
	return []mcp.Tool{
		{Name: "add", InputSchema: obj, Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			a := hnParse(args)
			return fmt.Appendf(nil, `{"sum":%d}`, a.A+a.B), nil
		}},
		{Name: "log", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcp.Log(ctx, mcp.LevelInfo, "t", "hello")
			return json.RawMessage(`{"ok":true}`), nil
		}},
		{Name: "progress", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcp.Progress(ctx, 1, 2, "half")
			return json.RawMessage(`{"ok":true}`), nil
		}},
		// steps logs N messages, each once the test releases it.
		{Name: "steps", InputSchema: obj, Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			a := hnParse(args)
			for i := range a.N {
				if err := wait(ctx, a.Key); err != nil {
					return nil, err
				}
				mcp.Log(ctx, mcp.LevelInfo, "", i)
			}
			return fmt.Appendf(nil, `{"steps":%d}`, a.N), nil
		}},
		{Name: "slow", InputSchema: obj, Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			if err := wait(ctx, hnParse(args).Key); err != nil {
				return nil, err
			}
			return json.RawMessage(`{"slow":true}`), nil
		}},
		// poll logs "before", closes its stream, waits, logs "after".
		{Name: "poll", InputSchema: obj, Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			a := hnParse(args)
			if a.N > 0 {
				mcp.Log(ctx, mcp.LevelInfo, "", "before")
			}
			hn.closed <- mcp.CloseStream(ctx)
			if err := wait(ctx, a.Key); err != nil {
				return nil, err
			}
			if a.N > 0 {
				mcp.Log(ctx, mcp.LevelInfo, "", "after")
			}
			return json.RawMessage(`{"polled":true}`), nil
		}},
		{Name: "needs", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			if err := mcp.RequireClientCapability(ctx, "elicitation"); err != nil {
				return nil, err
			}
			return json.RawMessage(`{"ok":true}`), nil
		}},
		{Name: "region", InputSchema: json.RawMessage(`{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"count":{"type":"integer","x-mcp-header":"count"},
			"flag":{"type":"boolean","x-mcp-header":"Flag"},
			"where":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
			"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"Bad"}}}},
			"query":{"type":"string"}}}`),
			Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) { return args, nil }},
	}
}

// reply is an HTTP response, read in full unless it is an event stream.
type reply struct {
	status int
	header http.Header
	body   string
	resp   *http.Response // an event stream still open; nil otherwise
}

// do sends a request; kv are header names and values.
func (hn *harness) do(method, body string, kv ...string) reply {
	hn.t.Helper()
	return hn.doCtx(context.Background(), method, body, kv...)
}

func (hn *harness) doCtx(ctx context.Context, method, body string, kv ...string) reply {
	hn.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, hn.url, rd)
	if err != nil {
		hn.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		hn.t.Fatalf("%s: %v", method, err)
	}
	r := reply{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r.resp = resp
		hn.t.Cleanup(func() { resp.Body.Close() })
		return r
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r.body = string(b)
	return r
}

func (hn *harness) post(body string, kv ...string) reply {
	hn.t.Helper()
	return hn.do(http.MethodPost, body, kv...)
}

// initialize starts a legacy session at version and returns its id.
func (hn *harness) initialize(version string) string {
	hn.t.Helper()
	r := hn.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if r.status != http.StatusOK {
		hn.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	sid := r.header.Get("Mcp-Session-Id")
	if sid == "" {
		hn.t.Fatal("initialize: no Mcp-Session-Id")
	}
	if r := hn.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid); r.status != http.StatusAccepted || r.body != "" {
		hn.t.Fatalf("notifications/initialized: %d %q", r.status, r.body)
	}
	return sid
}

// toolCall is a tools/call request body.
func toolCall(id int, name, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
}

// wantJSON checks a JSON response: its status, and its body as JSON.
func wantJSON(t *testing.T, r reply, status int, want string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (body %s)", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	if !rpctest.SameJSON(t, r.body, want) {
		t.Fatalf("body\n%s\nwant\n%s", r.body, want)
	}
	if r.header.Get("Content-Length") != fmt.Sprint(len(r.body)) {
		t.Fatalf("Content-Length %q for a body of %d bytes", r.header.Get("Content-Length"), len(r.body))
	}
}

// wantError checks an error response: status, a JSON-RPC error body with
// code, and its id (raw JSON; "null" for none).
func wantError(t *testing.T, r reply, status, code int, id string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d (body %s)", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json (body %s)", ct, r.body)
	}
	var e struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &e); err != nil || e.JSONRPC != "2.0" || e.Error == nil {
		t.Fatalf("body %q is not a JSON-RPC error response", r.body)
	}
	if e.Error.Code != code {
		t.Fatalf("error code %d (%s), want %d", e.Error.Code, e.Error.Message, code)
	}
	if string(e.ID) != id {
		t.Fatalf("error id %s, want %s", e.ID, id)
	}
}

// events reads the events of an event stream until it ends.
func events(t *testing.T, r reply) []sse.Event {
	t.Helper()
	if r.resp == nil {
		t.Fatalf("not an event stream: %d %s", r.status, r.body)
	}
	rd := sse.NewReader(r.resp.Body)
	var out []sse.Event
	for {
		e, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("read stream: %v", err)
			}
			return out
		}
		out = append(out, e)
	}
}

// withinTime fails the test if f does not return soon: a hang is a bug.
func withinTime(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: timed out", what)
	}
}

func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// eventually polls cond until it holds, failing after a while.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

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
	legacy := make(chan reply, 1)
	go func() { legacy <- hn.post(toolCall(1, "slow", `{"key":"legacy"}`), "Mcp-Session-Id", sid) }()
	recv(t, hn.started, "the legacy call")
	modern := make(chan reply, 1)
	go func() {
		modern <- hn.post(modernCall(2, "slow", `{"key":"modern"}`), modernHeaders("tools/call", "slow")...)
	}()
	recv(t, hn.started, "the modern call")

	stream := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
	done := make(chan error, 1)
	go func() { done <- hn.h.Shutdown(context.Background()) }()
	// The standalone stream ends; new requests are refused.
	withinTime(t, "standalone stream end", func() { events(t, stream) })
	eventually(t, "shutdown refuses requests", func() bool { return hn.h.closing() })
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
	legacy := make(chan reply, 1)
	go func() { legacy <- hn.post(toolCall(1, "slow", `{"key":"legacy"}`), "Mcp-Session-Id", sid) }()
	recv(t, hn.started, "the legacy call")
	modern := make(chan reply, 1)
	go func() {
		modern <- hn.post(modernCall(2, "slow", `{"key":"modern"}`), modernHeaders("tools/call", "slow")...)
	}()
	recv(t, hn.started, "the modern call")
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
	if r := hn.do(http.MethodDelete, "", "Mcp-Session-Id", sid); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d", r.status)
	}
	hn.initialize(mcp.Version20251125)
}

// A Handler mounted beside other routes, shut down with its server.
func ExampleHandler() {
	srv := mcp.NewServer(mcp.Implementation{Name: "adder", Version: "1.0.0"}, nil)
	srv.AddTools(mcp.Tool{
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
	srv := mcp.NewServer(mcp.Implementation{Name: "b", Version: "1"}, nil)
	srv.AddTools(mcp.Tool{
		Name:        "add",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`),
		Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			var in struct{ A, B int64 }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return fmt.Appendf(nil, `{"sum":%d}`, in.A+in.B), nil
		},
	})
	h := NewHandler(srv, nil)
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
}

// BenchmarkHandlerInProcess measures the handler alone, without sockets,
// which on a busy machine are most of the noise.
func BenchmarkHandlerInProcess(b *testing.B) {
	srv := mcp.NewServer(mcp.Implementation{Name: "b", Version: "1"}, nil)
	srv.AddTools(mcp.Tool{Name: "add", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in struct{ A, B int64 }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return fmt.Appendf(nil, `{"sum":%d}`, in.A+in.B), nil
	}})
	h := NewHandler(srv, nil)
	defer h.Close()
	w := httptest.NewRecorder()
	init := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	init.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(w, init)
	sid := w.Header().Get("Mcp-Session-Id")
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
