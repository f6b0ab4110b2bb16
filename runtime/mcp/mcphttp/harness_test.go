package mcphttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// The test harness of the Streamable HTTP tests: a Handler on a real socket
// with tools steered through channels, and checks of its answers. The
// HTTP+SSE and guard tests use the wire-level helpers of wire_test.go; the
// client's tests, in package mcphttp_test, have theirs in
// client_fake_test.go.

// harness is a Handler served on a real socket, with tools the tests steer
// through channels.
type harness struct {
	t      *testing.T
	h      *Handler
	ts     *httptest.Server
	url    string
	client *http.Client // nil: http.DefaultClient

	started   chan string   // a blocking tool started (its "key" argument)
	release   chan struct{} // lets a blocking tool go on, once per receive
	cancelled chan string   // a blocking tool saw its context end
	closed    chan bool     // what mcpserver.CloseStream returned
}

func newHarness(t *testing.T, opts *Options) *harness {
	t.Helper()
	return newHarnessOn(t, opts, false, nil)
}

func newHarnessOn(t *testing.T, opts *Options, inMemory bool, configure func(*http.Server)) *harness {
	t.Helper()
	hn := &harness{
		t:         t,
		started:   make(chan string, 100),
		release:   make(chan struct{}, 100),
		cancelled: make(chan string, 100),
		closed:    make(chan bool, 100),
	}
	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTools(hn.tools()...)
	hn.h = NewHandler(srv, opts)
	if inMemory {
		hn.ts = rpctest.NewPipeServer(t, hn.h, configure)
		hn.client = hn.ts.Client()
	} else {
		hn.ts = httptest.NewUnstartedServer(hn.h)
		if configure != nil {
			configure(hn.ts.Config)
		}
		hn.ts.Start()
		t.Cleanup(hn.ts.Close)
	}
	hn.url = hn.ts.URL + "/mcp"
	t.Cleanup(func() { hn.h.Close() })
	return hn
}

// newBubbleHarness is newHarness on an in-memory network, for a test in a
// testing/synctest bubble.
func newBubbleHarness(t *testing.T, opts *Options) *harness {
	t.Helper()
	return newHarnessOn(t, opts, true, nil)
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

func (hn *harness) tools() []mcpserver.Tool {
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
	return []mcpserver.Tool{
		{Name: "add", InputSchema: obj, Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
			a := hnParse(args)
			return fmt.Appendf(nil, `{"sum":%d}`, a.A+a.B), nil
		}},
		{Name: "log", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Log(ctx, mcp.LevelInfo, "t", "hello")
			return json.RawMessage(`{"ok":true}`), nil
		}},
		{Name: "progress", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			mcpserver.Progress(ctx, 1, 2, "half")
			return json.RawMessage(`{"ok":true}`), nil
		}},
		// steps logs N messages, each once the test releases it.
		{Name: "steps", InputSchema: obj, Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			a := hnParse(args)
			for i := range a.N {
				if err := wait(ctx, a.Key); err != nil {
					return nil, err
				}
				mcpserver.Log(ctx, mcp.LevelInfo, "", i)
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
				mcpserver.Log(ctx, mcp.LevelInfo, "", "before")
			}
			hn.closed <- mcpserver.CloseStream(ctx)
			if err := wait(ctx, a.Key); err != nil {
				return nil, err
			}
			if a.N > 0 {
				mcpserver.Log(ctx, mcp.LevelInfo, "", "after")
			}
			return json.RawMessage(`{"polled":true}`), nil
		}},
		{Name: "needs", InputSchema: obj, Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			if err := mcpserver.RequireClientCapability(ctx, "elicitation"); err != nil {
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
	client := hn.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
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

// recordedSession is a handler over benchServer with opts, closed when the
// test ends, and a legacy session initialized on it through a recorder: the
// handler alone, without sockets.
func recordedSession(tb testing.TB, opts *Options) (*Handler, string) {
	tb.Helper()
	h := NewHandler(benchServer(`{"type":"object"}`), opts)
	tb.Cleanup(func() { h.Close() })
	w := httptest.NewRecorder()
	init := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	init.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(w, init)
	sid := w.Header().Get("Mcp-Session-Id")
	if sid == "" {
		tb.Fatalf("initialize: %d %s, no Mcp-Session-Id", w.Code, w.Body)
	}
	return h, sid
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

// readKeepAlive reads an event stream up to a keep-alive comment, which
// must come soon.
func readKeepAlive(t *testing.T, br *bufio.Reader) {
	t.Helper()
	withinTime(t, "a keep-alive comment", func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Errorf("read: %v", err)
				return
			}
			if strings.HasPrefix(line, ":") {
				return
			}
		}
	})
}

// postAsync sends a POST on a goroutine of its own; its reply comes on the
// channel returned.
func (hn *harness) postAsync(body string, kv ...string) <-chan reply {
	ch := make(chan reply, 1)
	go func() { ch <- hn.post(body, kv...) }()
	return ch
}

// step waits for a blocking tool to start (what names the wait) and lets
// it go on once.
func (hn *harness) step(what string) {
	hn.t.Helper()
	recv(hn.t, hn.started, what)
	hn.release <- struct{}{}
}

// endSession ends the session sid with a DELETE, which must get 204; kv are
// more header names and values.
func (hn *harness) endSession(sid string, kv ...string) {
	hn.t.Helper()
	if r := hn.do(http.MethodDelete, "", append(kv, "Mcp-Session-Id", sid)...); r.status != http.StatusNoContent {
		hn.t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
}

// startSlowCalls starts a "slow" call in the legacy session sid and one in
// 2026-07-28, and waits until both run; their replies come on the channels.
func (hn *harness) startSlowCalls(sid string) (legacy, modern <-chan reply) {
	hn.t.Helper()
	legacy = hn.postAsync(toolCall(1, "slow", `{"key":"legacy"}`), "Mcp-Session-Id", sid)
	recv(hn.t, hn.started, "the legacy call")
	modern = hn.postAsync(modernCall(2, "slow", `{"key":"modern"}`), modernHeaders("tools/call", "slow")...)
	recv(hn.t, hn.started, "the modern call")
	return legacy, modern
}
