package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// Wire-level test helpers: the MCP server the HTTP+SSE and guard tests
// serve, a 2024-11-05 HTTP+SSE client, raw requests, and checks of JSON-RPC
// error bodies.

// testTools are what newTestServer's tools report to, and wait on.
var testTools = struct {
	mu      sync.Mutex
	started map[string]chan struct{} // "block" calls, by their key
	ended   map[string]chan struct{} // closed when a "block" call saw ctx.Done
	release map[string]chan struct{} // closing it lets a "slow" call return
}{started: map[string]chan struct{}{}, ended: map[string]chan struct{}{}, release: map[string]chan struct{}{}}

// toolChan returns the channel of m for key, creating it.
func toolChan(m map[string]chan struct{}, key string) chan struct{} {
	testTools.mu.Lock()
	defer testTools.mu.Unlock()
	c, ok := m[key]
	if !ok {
		c = make(chan struct{})
		m[key] = c
	}
	return c
}

var keySeq atomic.Int64

// uniqueKey names one tool call of a test, unique across -count runs.
func uniqueKey(t *testing.T) string {
	return fmt.Sprintf("%s-%d", t.Name(), keySeq.Add(1))
}

func keyOf(args json.RawMessage) string {
	var a struct{ Key string }
	json.Unmarshal(args, &a)
	return a.Key
}

// newTestServer returns an MCP server with the tools the tests use.
func newTestServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "mcphttp-test", Version: "1.0.0"}, nil)
	srv.AddTools(
		mcpserver.Tool{Name: "progress", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			for i := 1; i <= 3; i++ {
				mcpserver.Progress(ctx, float64(i), 3, fmt.Sprintf("step %d", i))
			}
			return json.RawMessage(`{"done":true}`), nil
		}},
		mcpserver.Tool{Name: "whoami", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			ti := TokenInfoFromContext(ctx)
			if ti == nil {
				return json.RawMessage(`{"subject":null}`), nil
			}
			return json.Marshal(map[string]string{"subject": ti.Subject})
		}},
		// block runs until its context ends.
		mcpserver.Tool{Name: "block", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			key := keyOf(args)
			close(toolChan(testTools.started, key))
			<-ctx.Done()
			close(toolChan(testTools.ended, key))
			return nil, ctx.Err()
		}},
		// slow runs until the test releases it, whatever its context.
		mcpserver.Tool{Name: "slow", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			key := keyOf(args)
			close(toolChan(testTools.started, key))
			<-toolChan(testTools.release, key)
			return json.RawMessage(`{"slow":true}`), nil
		}},
	)
	return srv
}

type errorEnvelope struct {
	ID    json.RawMessage `json:"id"`
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseErrorBody(body []byte) (errorEnvelope, bool) {
	var env struct {
		JSONRPC string           `json:"jsonrpc"`
		Error   *json.RawMessage `json:"error"`
	}
	var out errorEnvelope
	if json.Unmarshal(body, &env) != nil || env.JSONRPC != "2.0" || env.Error == nil || json.Unmarshal(body, &out) != nil {
		return errorEnvelope{}, false
	}
	return out, true
}

// wantErrorBody checks that a response is a JSON-RPC error with code whose
// message contains msg.
func wantErrorBody(t *testing.T, resp *http.Response, body []byte, code int, msg string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	env, ok := parseErrorBody(body)
	if !ok {
		t.Fatalf("body is not a JSON-RPC error response: %s", body)
	}
	if env.Error.Code != code {
		t.Errorf("error code %d, want %d (body %s)", env.Error.Code, code, body)
	}
	if !strings.Contains(env.Error.Message, msg) {
		t.Errorf("error message %q does not mention %q", env.Error.Message, msg)
	}
}

// roundTrip sends req with ts's client and returns the response, its body
// read in full.
func roundTrip(t *testing.T, ts *httptest.Server, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, body
}

// getSSE GETs the HTTP+SSE stream at ts's /mcp, for a test that expects it
// refused: the body is read in full.
func getSSE(t *testing.T, ts *httptest.Server) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	return roundTrip(t, ts, req)
}

// sseClient is a 2024-11-05 HTTP+SSE client written against the wire.
type sseClient struct {
	t        *testing.T
	ts       *httptest.Server
	token    string
	resp     *http.Response
	cancel   context.CancelFunc
	events   chan sse.Event // the stream's events; closed at its end
	endpoint string         // absolute URL to POST to

	paused  *atomic.Bool  // pause: the stream's reader stops after its event
	resumed chan struct{} // closed by resume
}

// pause makes the client stop reading its stream once it has read the event
// it is reading, if any, as a client that does not read would; resume lets
// it read again. Events already read stay in c.events.
func (c *sseClient) pause() { c.paused.Store(true) }

// resume undoes pause.
func (c *sseClient) resume() { close(c.resumed) }

// dialSSE opens the stream at path and reads the endpoint event.
func dialSSE(t *testing.T, ts *httptest.Server, path, token string) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("GET %s: status %d; body %s", path, resp.StatusCode, body)
	}
	c := &sseClient{t: t, ts: ts, token: token, resp: resp, cancel: cancel, events: make(chan sse.Event, 64),
		paused: new(atomic.Bool), resumed: make(chan struct{})}
	t.Cleanup(c.close)
	go func() {
		defer close(c.events)
		rd := sse.NewReader(resp.Body)
		for {
			ev, err := rd.Next()
			if err != nil {
				return
			}
			c.events <- ev
			if c.paused.Load() {
				select {
				case <-c.resumed:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	ev := c.next()
	if ev.Type != "endpoint" {
		t.Fatalf("first event %+v, want an endpoint event", ev)
	}
	base, _ := url.Parse(ts.URL + path)
	ep, err := base.Parse(ev.Data)
	if err != nil {
		t.Fatalf("endpoint %q: %v", ev.Data, err)
	}
	c.endpoint = ep.String()
	return c
}

func (c *sseClient) close() {
	c.cancel()
	c.resp.Body.Close()
	for range c.events {
	}
}

// next returns the next event, failing the test if none comes soon.
func (c *sseClient) next() sse.Event {
	c.t.Helper()
	select {
	case ev, ok := <-c.events:
		if !ok {
			c.t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		c.t.Fatal("no event within 10s")
	}
	return sse.Event{}
}

// nextMessage returns the data of the next message event.
func (c *sseClient) nextMessage() string {
	c.t.Helper()
	ev := c.next()
	if ev.Type != "message" {
		c.t.Fatalf("event %+v, want a message event", ev)
	}
	return ev.Data
}

// post sends body to url and returns the status and response body.
func (c *sseClient) post(url, body string) (*http.Response, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, b := roundTrip(c.t, c.ts, req)
	return resp, b
}

// send posts a message to the session and wants it accepted.
func (c *sseClient) send(body string) {
	c.t.Helper()
	resp, b := c.post(c.endpoint, body)
	if resp.StatusCode != http.StatusAccepted || string(b) != "Accepted" {
		c.t.Fatalf("POST %s: status %d, body %q; want 202 Accepted", body, resp.StatusCode, b)
	}
}

// call sends a request and returns the messages it brings on the stream,
// up to and including its response.
func (c *sseClient) call(body string) []string {
	c.t.Helper()
	c.send(body)
	var msgs []string
	for {
		m := c.nextMessage()
		msgs = append(msgs, m)
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal([]byte(m), &env)
		if env.ID != nil && env.Method == "" {
			return msgs
		}
	}
}

func (c *sseClient) initialize() {
	c.t.Helper()
	msgs := c.call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05",` +
		`"capabilities":{},"clientInfo":{"name":"legacy-test","version":"1"}}}`)
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"protocolVersion":"2024-11-05"`) {
		c.t.Fatalf("initialize: %q", msgs)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// startCall sends a tools/call of tool (block or slow) with request id (raw
// JSON) and a unique key, and waits until the tool runs; it returns the key.
func (c *sseClient) startCall(id, tool string) string {
	c.t.Helper()
	key := uniqueKey(c.t)
	c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"key":"` + key + `"}}}`)
	recv(c.t, toolChan(testTools.started, key), "the tool to start")
	return key
}

func newLegacyServer(t *testing.T, opts *Options) (*Handler, *httptest.Server) {
	t.Helper()
	h := NewHandler(newTestServer(), opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mounted/", http.StripPrefix("/mounted", h))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	return h, ts
}
