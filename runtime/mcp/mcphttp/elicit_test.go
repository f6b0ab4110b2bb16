package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// A tool's elicitation in a legacy Streamable HTTP session: the request
// goes out at once on the call's stream, the client answers with a POST on
// another request (on HTTP/1.1 another connection, while the call runs on
// the first one's goroutine), and the call's result follows.
func TestElicitStreamable(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		for _, version := range []string{mcp.Version20250618, mcp.Version20251125} {
			name := fmt.Sprintf("h2=%v/%s", h2, version)
			t.Run(name, func(t *testing.T) {
				rpctest.CheckLeaks(t)
				hn, _ := newFeatureHarness(t, nil, h2)
				sid := hn.initializeWith(version, `{"elicitation":{}}`)
				r := hn.post(toolCall(1, "ask", `{}`), "Mcp-Session-Id", sid)
				if r.resp == nil {
					t.Fatalf("tools/call: %d %s, want an event stream", r.status, r.body)
				}
				if want := "HTTP/1.1"; !h2 && r.resp.Proto != want {
					t.Fatalf("protocol %s, want %s", r.resp.Proto, want)
				}
				if h2 && r.resp.ProtoMajor != 2 {
					t.Fatalf("protocol %s, want HTTP/2", r.resp.Proto)
				}
				ch := streamEvents(t, r.resp.Body)
				req, _ := nextMsg(t, ch, "the elicitation request")
				wantElicitation(t, req)
				a := hn.post(elicitAnswer(req.ID, "Ada"), "Mcp-Session-Id", sid)
				if a.status != http.StatusAccepted || a.body != "" {
					t.Fatalf("answer: %d %q, want 202", a.status, a.body)
				}
				res, _ := nextMsg(t, ch, "the call's response")
				wantAsked(t, res, "1", "Ada")
				wantEnd(t, ch, "the call's stream")
			})
		}
	}
}

// 2025-03-26 lets a client batch its answers: a batch of responses is
// accepted, each one handed to the call waiting for it.
func TestSampleBatchedAnswer(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn, _ := newFeatureHarness(t, nil, false)
	sid := hn.initializeWith(mcp.Version20250326, `{"sampling":{}}`)
	r := hn.post(toolCall(1, "sample", `{}`), "Mcp-Session-Id", sid)
	if r.resp == nil {
		t.Fatalf("tools/call: %d %s, want an event stream", r.status, r.body)
	}
	ch := streamEvents(t, r.resp.Body)
	req, _ := nextMsg(t, ch, "the sampling request")
	if req.Method != "sampling/createMessage" || req.ID == nil {
		t.Fatalf("message %+v, want a sampling/createMessage request", req)
	}
	answer := fmt.Sprintf(`[{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m1"}}]`, req.ID)
	if a := hn.post(answer, "Mcp-Session-Id", sid); a.status != http.StatusAccepted || a.body != "" {
		t.Fatalf("batched answer: %d %q, want 202", a.status, a.body)
	}
	res, _ := nextMsg(t, ch, "the call's response")
	// 2025-03-26 has no structured content: the tool's JSON is the text.
	if string(res.ID) != "1" || !strings.Contains(string(res.Result), `\"model\":\"m1\",\"text\":\"hi\"`) {
		t.Fatalf("response %s %s (error %+v)", res.ID, res.Result, res.Error)
	}
	wantEnd(t, ch, "the call's stream")
}

// An answer that no call waits for is accepted all the same.
func TestStreamableStrayAnswer(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn, _ := newFeatureHarness(t, nil, false)
	sid := hn.initializeWith(mcp.Version20251125, `{"elicitation":{}}`)
	a := hn.post(elicitAnswer(json.RawMessage(`"nobody"`), "x"), "Mcp-Session-Id", sid)
	if a.status != http.StatusAccepted || a.body != "" {
		t.Fatalf("stray answer: %d %q, want 202", a.status, a.body)
	}
	wantJSON(t, hn.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", sid), 200, `{"jsonrpc":"2.0","id":2,"result":{}}`)
}

// A shutdown lets a call waiting for the client's answer finish: the
// answer still gets through, while new requests get 503.
func TestShutdownTakesAnswers(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn, _ := newFeatureHarness(t, nil, false)
	sid := hn.initializeWith(mcp.Version20251125, `{"elicitation":{}}`)
	r := hn.post(toolCall(1, "ask", `{}`), "Mcp-Session-Id", sid)
	if r.resp == nil {
		t.Fatalf("tools/call: %d %s, want an event stream", r.status, r.body)
	}
	ch := streamEvents(t, r.resp.Body)
	req, _ := nextMsg(t, ch, "the elicitation request")
	wantElicitation(t, req)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hn.h.Shutdown(ctx) }()
	eventually(t, hn.h, "the shutdown begins", hn.h.closing)
	wantError(t, hn.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", sid), 503, -32000, "null")
	if a := hn.post(elicitAnswer(req.ID, "Bo"), "Mcp-Session-Id", sid); a.status != http.StatusAccepted {
		t.Fatalf("answer during shutdown: %d %q, want 202", a.status, a.body)
	}
	res, _ := nextMsg(t, ch, "the call's response")
	wantAsked(t, res, "1", "Bo")
	if err := recv(t, shut, "Shutdown"); err != nil {
		t.Fatalf("Shutdown: %v, want nil (the call finished)", err)
	}
}

// A tool's elicitation in an HTTP+SSE session: the request comes on the
// session's stream, the answer is POSTed to the session's endpoint.
func TestElicitLegacySSE(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := NewHandler(newFeatureServer(), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	c := dialSSE(t, ts, "/mcp", "")
	msgs := c.call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`)
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"result"`) {
		t.Fatalf("initialize: %q", msgs)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	c.send(toolCall(1, "ask", `{}`))
	req := parseMsg(t, c.nextMessage())
	wantElicitation(t, req)
	c.send(elicitAnswer(req.ID, "Cy"))
	wantAsked(t, parseMsg(t, c.nextMessage()), "1", "Cy")

	// Subscribed, the session gets resources/updated on its stream.
	if msgs := c.call(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + featureURI + `"}}`); len(msgs) != 1 ||
		!rpctest.SameJSON(t, msgs[0], `{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Fatalf("resources/subscribe: %q", msgs)
	}
	h.srv.ResourceUpdated(featureURI)
	wantUpdated(t, parseMsg(t, c.nextMessage()))
}

// An HTTP+SSE shutdown lets a call waiting for the client's answer finish:
// the answer still gets through, and its result goes on the stream.
func TestLegacySSEShutdownTakesAnswers(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := NewHandler(newFeatureServer(), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	c := dialSSE(t, ts, "/mcp", "")
	c.call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(toolCall(1, "ask", `{}`))
	req := parseMsg(t, c.nextMessage())
	wantElicitation(t, req)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- h.Shutdown(ctx) }()
	eventually(t, h, "the shutdown begins", h.closing)
	if resp, b := c.post(c.endpoint, toolCall(2, "ask", `{}`)); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("call during shutdown: %d %s, want 503", resp.StatusCode, b)
	}
	c.send(elicitAnswer(req.ID, "Ed"))
	wantAsked(t, parseMsg(t, c.nextMessage()), "1", "Ed")
	if err := recv(t, shut, "Shutdown"); err != nil {
		t.Fatalf("Shutdown: %v, want nil (the call finished)", err)
	}
}

// A call whose client went away before its response became an event
// stream sends its request to the client on the session's standalone
// stream, where the client finds it, rather than waiting for good.
func TestElicitAfterClientLeft(t *testing.T) {
	rpctest.CheckLeaks(t)
	started, release := make(chan struct{}, 1), make(chan struct{})
	answered := make(chan string, 1)
	srv := mcpserver.New(mcp.Implementation{Name: "f", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "later", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			started <- struct{}{}
			<-release
			res, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				answered <- err.Error()
				return nil, err
			}
			answered <- res.Action
			return json.RawMessage(`{}`), nil
		}})
	hn := newServerHarness(t, srv, nil, false)
	sid := hn.initializeWith(mcp.Version20251125, `{"elicitation":{}}`)

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hn.url, strings.NewReader(toolCall(1, "later", `{}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	posted := make(chan struct{})
	go func() {
		defer close(posted)
		if resp, err := hn.client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	recv(t, started, "the call")
	cancel() // the client goes away
	<-posted
	s := hn.h.session(sid)
	s.mu.Lock()
	calls := s.calls
	s.mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("%d calls in flight, want 1", len(calls))
	}
	select { // the server sees the client gone
	case <-calls[0].cctx.vals.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not see the client go away within 10s")
	}
	close(release)

	r := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
	if r.resp == nil {
		t.Fatalf("GET: %d %s", r.status, r.body)
	}
	m, _ := nextMsg(t, streamEvents(t, r.resp.Body), "the elicitation request")
	wantElicitation(t, m)
	if a := hn.post(elicitAnswer(m.ID, "Gus"), "Mcp-Session-Id", sid); a.status != http.StatusAccepted {
		t.Fatalf("answer: %d %q, want 202", a.status, a.body)
	}
	if got := recv(t, answered, "the answer"); got != "accept" {
		t.Fatalf("Elicit: %s, want accept", got)
	}
}
