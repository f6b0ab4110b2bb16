package mcphttp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

func TestLegacySSE(t *testing.T) {
	rpctest.CheckLeaks(t)
	h, ts := newLegacyServer(t, nil)

	// The stream and its endpoint event.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/mcp?tenant=x", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	ev, err := sse.NewReader(resp.Body).Next()
	resp.Body.Close()
	if err != nil || ev.Type != "endpoint" || !strings.HasPrefix(ev.Data, "/mcp?sessionId=") || strings.Contains(ev.Data, "tenant") {
		t.Fatalf("first event %+v (%v), want an endpoint /mcp?sessionId=…", ev, err)
	}

	c := dialSSE(t, ts, "/mcp", "")
	if n := h.SessionCount(); n < 1 {
		t.Errorf("SessionCount %d with a stream open", n)
	}
	c.initialize()

	// Progress notifications come in order, before the response.
	msgs := c.call(`{"jsonrpc":"2.0","id":"p1","method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"tok"}}}`)
	if len(msgs) != 4 {
		t.Fatalf("got %d messages, want 3 progress notifications and the response: %q", len(msgs), msgs)
	}
	for i, m := range msgs[:3] {
		want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":%d,"total":3}}`, i+1)
		if !rpctest.SameJSON(t, m, want) {
			t.Errorf("message %d: %s, want %s", i, m, want)
		}
	}
	if !strings.Contains(msgs[3], `"id":"p1"`) || !strings.Contains(msgs[3], `"result"`) || !strings.Contains(msgs[3], `done`) {
		t.Errorf("response %s", msgs[3])
	}

	// Malformed bodies get 400 and a JSON-RPC error; the session goes on.
	for _, tc := range []struct {
		body string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700, "null"},
		{"\xff", -32700, "null"},
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, -32600, "5"},
		{`{"jsonrpc":"2.0","id":6}`, -32600, "6"},
		{`{"jsonrpc":"2.0","id":7,"method":7}`, -32600, "7"},
		{`42`, -32600, "null"},
	} {
		resp, body := c.post(c.endpoint, tc.body)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("POST %q: status %d, want 400", tc.body, resp.StatusCode)
			continue
		}
		wantErrorBody(t, resp, body, tc.code, "")
		if env, _ := parseErrorBody(body); string(env.ID) != tc.id {
			t.Errorf("POST %q: id %s, want %s", tc.body, env.ID, tc.id)
		}
	}
	// Wrong content type and oversized bodies are refused too.
	req, _ = http.NewRequest(http.MethodPost, c.endpoint, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "text/plain")
	resp, body := roundTrip(t, ts, req)
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain POST: status %d, want 415", resp.StatusCode)
	}
	wantErrorBody(t, resp, body, -32600, "application/json")

	msgs = c.call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if len(msgs) != 1 || !rpctest.SameJSON(t, msgs[0], `{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Errorf("ping after the malformed POSTs: %q", msgs)
	}
	msgs = c.call(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	if len(msgs) != 1 || !strings.Contains(msgs[0], `"error"`) {
		t.Errorf("unknown tool: %q", msgs)
	}

	// Unknown sessions get 404.
	u, _ := url.Parse(c.endpoint)
	for _, sid := range []string{"nope", ""} {
		q := u.Query()
		q.Set("sessionId", sid)
		u.RawQuery = q.Encode()
		if sid == "" {
			u.RawQuery = "sessionId=x" + strings.Repeat("y", 30)
		}
		resp, body := c.post(u.String(), `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown session %q: status %d, want 404", u.RawQuery, resp.StatusCode)
			continue
		}
		wantErrorBody(t, resp, body, -32600, "session")
	}

	// Closing the stream ends the session.
	c.close()
	eventually(t, h, "the session has ended", func() bool { return h.SessionCount() == 0 })
	resp2, body := c.post(c.endpoint, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if resp2.StatusCode != http.StatusNotFound {
		t.Errorf("POST after the stream closed: status %d, want 404", resp2.StatusCode)
	}
	wantErrorBody(t, resp2, body, -32600, "")
}

func TestLegacySSEMounted(t *testing.T) {
	rpctest.CheckLeaks(t)
	_, ts := newLegacyServer(t, nil)
	c := dialSSE(t, ts, "/mounted/sse", "")
	if u, _ := url.Parse(c.endpoint); u.Path != "/mounted/sse" {
		t.Errorf("endpoint %s: want the path the client asked for", c.endpoint)
	}
	c.initialize()
	if msgs := c.call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); len(msgs) != 1 {
		t.Errorf("ping: %q", msgs)
	}
}

func TestLegacySSECloseCancelsCalls(t *testing.T) {
	rpctest.CheckLeaks(t)
	h, ts := newLegacyServer(t, nil)
	c := dialSSE(t, ts, "/mcp", "")
	c.initialize()
	key := c.startCall(`9`, "block")
	c.close()
	recv(t, toolChan(testTools.ended, key), "closing the stream to cancel the call")
	eventually(t, h, "the session has ended", func() bool { return h.SessionCount() == 0 })
}

func TestLegacySSECancelNotification(t *testing.T) {
	rpctest.CheckLeaks(t)
	_, ts := newLegacyServer(t, nil)
	c := dialSSE(t, ts, "/mcp", "")
	c.initialize()
	key := c.startCall(`"b"`, "block")
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b"}}`)
	recv(t, toolChan(testTools.ended, key), "notifications/cancelled to cancel the call")
	// The cancelled call gets no response; the next message is the ping's.
	if msgs := c.call(`{"jsonrpc":"2.0","id":"after","method":"ping"}`); len(msgs) != 1 || !strings.Contains(msgs[0], `"after"`) {
		t.Errorf("after the cancellation: %q", msgs)
	}
}

func TestLegacySSEAuth(t *testing.T) {
	rpctest.CheckLeaks(t)
	_, ts := newLegacyServer(t, &Options{Auth: testAuth()})

	resp, _ := getSSE(t, ts)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), testMetadataURL) {
		t.Fatalf("GET without a token: status %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	c := dialSSE(t, ts, "/mcp", "alice")
	c.initialize()
	msgs := c.call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`)
	if len(msgs) != 1 || !strings.Contains(msgs[0], `\"subject\":\"alice\"`) && !strings.Contains(msgs[0], `"subject":"alice"`) {
		t.Errorf("whoami: %q", msgs)
	}

	// Another user's token does not find alice's session, and no token is
	// no access at all.
	bob := *c
	bob.token = "bob"
	if resp, body := bob.post(c.endpoint, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob's POST to alice's session: status %d, want 404; body %s", resp.StatusCode, body)
	}
	anon := *c
	anon.token = ""
	if resp, _ := anon.post(c.endpoint, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST without a token: status %d, want 401", resp.StatusCode)
	}
	if msgs := c.call(`{"jsonrpc":"2.0","id":4,"method":"ping"}`); len(msgs) != 1 || !strings.Contains(msgs[0], `"id":4`) {
		t.Errorf("alice's ping: %q", msgs)
	}
}

func TestLegacySSENotAcceptable(t *testing.T) {
	rpctest.CheckLeaks(t)
	_, ts := newLegacyServer(t, nil)
	for _, tc := range []struct {
		accept string
		ok     bool
	}{
		{"application/json", false},
		{"text/event-stream;q=0, application/json", false},
		{"text/html, text/event-stream", true},
		{"text/*", true},
		{"*/*;q=0.1", true},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/mcp", nil)
		req.Header.Set("Accept", tc.accept)
		resp, err := ts.Client().Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		if tc.ok {
			if resp.StatusCode != http.StatusOK {
				t.Errorf("Accept %q: status %d, want 200", tc.accept, resp.StatusCode)
			}
		} else {
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusNotAcceptable {
				t.Errorf("Accept %q: status %d, want 406", tc.accept, resp.StatusCode)
			} else {
				wantErrorBody(t, resp, body, -32600, "text/event-stream")
			}
		}
		cancel()
		resp.Body.Close()
	}
}

func TestLegacySSEMaxSessions(t *testing.T) {
	rpctest.CheckLeaks(t)
	h, ts := newLegacyServer(t, &Options{MaxSessions: 1})
	c := dialSSE(t, ts, "/mcp", "")
	resp, body := getSSE(t, ts)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("second stream: status %d, want 503", resp.StatusCode)
	}
	wantErrorBody(t, resp, body, -32000, "")
	c.close()
	// The session is removed, then its GET lets its slot go as it returns.
	eventually(t, h, "the session has ended and freed its slot", func() bool {
		return h.SessionCount() == 0 && h.nsessions.Load() == 0
	})
	dialSSE(t, ts, "/mcp", "") // the slot is free again
}

func TestLegacySSEKeepAlive(t *testing.T) {
	rpctest.CheckLeaks(t)
	_, ts := newLegacyServer(t, &Options{KeepAlive: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	comments := 0
	for comments < 2 && sc.Scan() {
		if strings.HasPrefix(sc.Text(), ":") {
			comments++
		}
	}
	if comments < 2 {
		t.Fatalf("stream ended before two keep-alive comments: %v", sc.Err())
	}
}

func TestLegacySSEShutdown(t *testing.T) {
	rpctest.CheckLeaks(t)
	h, ts := newLegacyServer(t, nil)
	c := dialSSE(t, ts, "/mcp", "")
	c.initialize()
	key := c.startCall(`"s"`, "slow")

	done := make(chan error, 1)
	go func() { done <- h.Shutdown(context.Background()) }()
	// New streams are refused while the call finishes.
	eventually(t, h, "the shutdown begins", h.closing)
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	if resp, err := ts.Client().Do(req); err != nil {
		t.Errorf("a new stream during the shutdown: %v", err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a new stream during the shutdown: %d, want 503", resp.StatusCode)
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) with a call in flight", err)
	default:
	}
	close(toolChan(testTools.release, key))
	// The call's response still reaches the stream, which then ends.
	if m := c.nextMessage(); !strings.Contains(m, `"id":"s"`) || !strings.Contains(m, `slow`) {
		t.Errorf("response %s", m)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown did not return")
	}
	for range c.events {
	}
	if n := h.SessionCount(); n != 0 {
		t.Errorf("SessionCount %d after Shutdown", n)
	}
}

func TestLegacySSEClose(t *testing.T) {
	rpctest.CheckLeaks(t)
	h, ts := newLegacyServer(t, nil)
	c := dialSSE(t, ts, "/mcp", "")
	c.initialize()
	key := c.startCall(`1`, "block")
	h.Close()
	recv(t, toolChan(testTools.ended, key), "Close to cancel the call")
	for range c.events { // the stream ends
	}
}

func TestLegacySSEDisabled(t *testing.T) {
	rpctest.CheckLeaks(t)
	_, ts := newLegacyServer(t, &Options{DisableLegacySSE: true})
	resp, body := getSSE(t, ts)
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET with the HTTP+SSE transport off: status %d, want 405", resp.StatusCode)
	}
	if _, ok := parseErrorBody(body); !ok {
		t.Errorf("body is not a JSON-RPC error: %s", body)
	}
}

func TestEndpointPath(t *testing.T) {
	for _, tc := range []struct{ target, want string }{
		{"/mcp?x=1", "/mcp"},
		{"/a%20b/sse", "/a%20b/sse"},
		{"http://example.com/abs?y", "/abs"},
		{"//evil.example.com/x", "/.//evil.example.com/x"},
	} {
		r := httptest.NewRequest(http.MethodGet, tc.target, nil)
		if got := endpointPath(r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.target, got, tc.want)
		}
		base, _ := url.Parse("http://127.0.0.1:8080" + tc.want)
		if ep, err := base.Parse(endpointPath(r) + "?sessionId=s"); err != nil || ep.Host != "127.0.0.1:8080" {
			t.Errorf("%s: the endpoint resolves to %v (%v), off this server", tc.target, ep, err)
		}
	}
}
