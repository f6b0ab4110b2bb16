package mcphttp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

func TestSessionLifecycle(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	// A failed initialize makes no session.
	r := hn.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if r.status != 200 || r.header.Get("Mcp-Session-Id") != "" || !strings.Contains(r.body, `-32602`) {
		t.Fatalf("bad initialize: %d %v %s", r.status, r.header, r.body)
	}
	sid := hn.initialize(mcp.Version20251125)
	for i := 0; i < len(sid); i++ {
		if sid[i] < 0x21 || sid[i] > 0x7e {
			t.Fatalf("session id %q is not visible ASCII", sid)
		}
	}
	if other := hn.initialize(mcp.Version20251125); other == sid {
		t.Fatal("two sessions got the same id")
	}
	if n := hn.h.SessionCount(); n != 2 {
		t.Fatalf("SessionCount %d, want 2", n)
	}
	wantJSON(t, hn.post(toolCall(2, "add", `{"a":1,"b":2}`), "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25"), 200,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}}`)
	// Missing session id after initialize: 400 naming it.
	r = hn.post(toolCall(3, "add", `{}`))
	wantError(t, r, 400, -32600, "3")
	if !strings.Contains(r.body, "Mcp-Session-Id") {
		t.Errorf("400 body does not name the header: %s", r.body)
	}
	// A second initialize in the session is refused.
	wantError(t, hn.post(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, "Mcp-Session-Id", sid), 400, -32600, "4")
	// A response the server never asked for is accepted and dropped.
	if r := hn.post(`{"jsonrpc":"2.0","id":5,"result":{}}`, "Mcp-Session-Id", sid); r.status != http.StatusAccepted || r.body != "" {
		t.Fatalf("response: %d %q", r.status, r.body)
	}
	hn.endSession(sid)
	wantError(t, hn.post(toolCall(6, "add", `{}`), "Mcp-Session-Id", sid), 404, -32600, "6")
	wantError(t, hn.do(http.MethodDelete, "", "Mcp-Session-Id", sid), 404, -32600, "null")
	wantError(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid), 404, -32600, "null")
	if n := hn.h.SessionCount(); n != 1 {
		t.Fatalf("SessionCount %d, want 1", n)
	}
}

func TestProtocolVersionHeader(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20250618)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, v := range []string{"", "2025-06-18", "2025-03-26", "2024-11-05", "2025-11-25"} {
		kv := []string{"Mcp-Session-Id", sid}
		if v != "" {
			kv = append(kv, "MCP-Protocol-Version", v)
		}
		wantJSON(t, hn.post(ping, kv...), 200, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}
	for _, v := range []string{"2026-07-28", "2025-13-01", "garbage"} {
		wantError(t, hn.post(ping, "Mcp-Session-Id", sid, "MCP-Protocol-Version", v), 400, -32600, "1")
		wantError(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "MCP-Protocol-Version", v), 400, -32600, "null")
	}
}

func TestBatches(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20250326)
	r := hn.post(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},`+toolCall(2, "add", `{"a":2,"b":2}`)+`]`, "Mcp-Session-Id", sid)
	wantJSON(t, r, 200, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"sum\":4}"}]}}]`)
	// A batch of notifications only has no reply.
	if r := hn.post(`[{"jsonrpc":"2.0","method":"notifications/x"}]`, "Mcp-Session-Id", sid); r.status != http.StatusAccepted {
		t.Fatalf("notification batch: %d %s", r.status, r.body)
	}
}

// TestIdleExpiry runs in a synctest bubble: the idle timeouts pass in
// virtual time, and the busy session lives through five of them.
func TestIdleExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hn := newBubbleHarness(t, &Options{SessionIdleTimeout: 30 * time.Millisecond})
		sid := hn.initialize(mcp.Version20251125)
		// (Polling with requests would keep it alive.) These sleeps stay:
		// in the bubble they are virtual time passing, the behaviour under
		// test, and synctest.Wait then settles every goroutine.
		time.Sleep(45 * time.Millisecond) // a timeout and a sweep
		synctest.Wait()
		if n := hn.h.SessionCount(); n != 0 {
			t.Fatalf("%d sessions after the idle timeout", n)
		}
		wantError(t, hn.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Mcp-Session-Id", sid), 404, -32600, "1")
		// A session with an open stream, or a call in flight, is not idle.
		sid = hn.initialize(mcp.Version20251125)
		stream := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
		done := hn.postAsync(toolCall(1, "slow", `{"key":"k"}`), "Mcp-Session-Id", sid)
		recv(t, hn.started, "the call")
		time.Sleep(150 * time.Millisecond) // five idle timeouts
		synctest.Wait()
		hn.release <- struct{}{}
		if r := recv(t, done, "the reply"); r.status != 200 {
			t.Fatalf("call: %d %s", r.status, r.body)
		}
		if r := hn.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", sid); r.status != 200 {
			t.Fatalf("the busy session expired: %d", r.status)
		}
		stream.resp.Body.Close()
		synctest.Wait()
		time.Sleep(29 * time.Millisecond) // idle, but not for a timeout yet
		synctest.Wait()
		if n := hn.h.SessionCount(); n != 1 {
			t.Fatalf("%d sessions before the idle timeout", n)
		}
		time.Sleep(16 * time.Millisecond) // a timeout and a sweep
		synctest.Wait()
		if n := hn.h.SessionCount(); n != 0 {
			t.Fatalf("%d sessions once idle past the timeout", n)
		}
	})
}

func TestStandaloneStream(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{RetryInterval: 2500 * time.Millisecond})
	sid := hn.initialize(mcp.Version20251125)
	r := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
	if r.status != 200 || r.header.Get("X-Accel-Buffering") != "no" || r.header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("GET: %d %v", r.status, r.header)
	}
	rd := sse.NewReader(r.resp.Body)
	prime, err := rd.Next()
	if err != nil || !prime.HasID || prime.ID == "" || prime.Data != "" || prime.Retry != 2500*time.Millisecond {
		t.Fatalf("priming event %+v, %v", prime, err)
	}
	// One standalone stream at a time.
	wantError(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream"), http.StatusConflict, -32600, "null")
	// Not acceptable without text/event-stream.
	wantError(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "application/json"), http.StatusNotAcceptable, -32600, "null")

	s := hn.h.session(sid)
	s.sendUnrelated([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
	e1, err := rd.Next()
	if err != nil || !e1.HasID || !strings.Contains(e1.Data, "list_changed") {
		t.Fatalf("event %+v, %v", e1, err)
	}
	// The client drops the stream; what is sent meanwhile waits for it.
	r.resp.Body.Close()
	s.sendUnrelated([]byte(`{"jsonrpc":"2.0","method":"notifications/m","params":{"n":2}}`))
	s.sendUnrelated([]byte(`{"jsonrpc":"2.0","method":"notifications/m","params":{"n":3}}`))
	var resumed reply
	// The server lets the stream go once it sees the client gone.
	eventually(t, hn.h, "the stream is free again", func() bool { return standaloneFree(hn.h, sid) })
	resumed = hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", e1.ID)
	if resumed.status != 200 {
		t.Fatalf("GET resuming the freed stream: %d %s", resumed.status, resumed.body)
	}
	rd = sse.NewReader(resumed.resp.Body)
	for _, n := range []string{`"n":2`, `"n":3`} {
		e, err := rd.Next()
		if err != nil || !strings.Contains(e.Data, n) || !e.HasID {
			t.Fatalf("replayed event %+v, %v; want %s", e, err, n)
		}
	}
	s.sendUnrelated([]byte(`{"jsonrpc":"2.0","method":"notifications/m","params":{"n":4}}`))
	if e, err := rd.Next(); err != nil || !strings.Contains(e.Data, `"n":4`) {
		t.Fatalf("live event %+v, %v", e, err)
	}
	// Ending the session ends the stream.
	hn.endSession(sid)
	withinTime(t, "the stream ends", func() {
		if e, err := rd.Next(); err == nil {
			t.Errorf("event after DELETE: %+v", e)
		}
	})
}

// In a legacy session, a disconnect is not a cancellation: the client sends
// notifications/cancelled.
func TestLegacyCancel(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	done := hn.postAsync(toolCall(7, "slow", `{"key":"k"}`), "Mcp-Session-Id", sid)
	recv(t, hn.started, "the call")
	r := hn.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "Mcp-Session-Id", sid)
	if r.status != http.StatusAccepted || r.body != "" {
		t.Fatalf("cancel: %d %q", r.status, r.body)
	}
	recv(t, hn.cancelled, "the cancellation")
	if r := recv(t, done, "the call's POST"); r.status != http.StatusAccepted || r.body != "" {
		t.Fatalf("cancelled call: %d %q", r.status, r.body)
	}
}

// Deleting a session cancels its calls.
func TestDeleteCancelsCalls(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	done := hn.postAsync(toolCall(7, "slow", `{"key":"k"}`), "Mcp-Session-Id", sid)
	recv(t, hn.started, "the call")
	hn.endSession(sid)
	recv(t, hn.cancelled, "the cancellation")
	wantError(t, recv(t, done, "the call's POST"), 404, -32600, "null")
	eventually(t, hn.h, "the events are gone", func() bool { return hn.h.store.(*MemoryEventStore).sessionCount() == 0 })
}

// A session belongs to the token subject that started it: to anyone else
// its id is unknown.
func TestSessionBelongsToSubject(t *testing.T) {
	rpctest.CheckLeaks(t)
	verify := func(_ context.Context, token string, _ *http.Request) (*TokenInfo, error) {
		if token == "alice" || token == "bob" {
			return &TokenInfo{Subject: token}, nil
		}
		return nil, ErrInvalidToken
	}
	hn := newHarness(t, &Options{Auth: &Auth{Verify: verify, ResourceMetadataURL: "https://example.com/.well-known/oauth-protected-resource"}})
	r := hn.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, "Authorization", "Bearer alice")
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	wantJSON(t, hn.post(ping, "Authorization", "Bearer alice", "Mcp-Session-Id", sid), 200, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	wantError(t, hn.post(ping, "Authorization", "Bearer bob", "Mcp-Session-Id", sid), 404, -32600, "1")
	wantError(t, hn.do(http.MethodGet, "", "Authorization", "Bearer bob", "Mcp-Session-Id", sid), 404, -32600, "null")
	wantError(t, hn.do(http.MethodDelete, "", "Authorization", "Bearer bob", "Mcp-Session-Id", sid), 404, -32600, "null")
	hn.endSession(sid, "Authorization", "Bearer alice")
}

// A large JSON reply goes out in one piece, with its length.
func TestLargeJSONReply(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	big := strings.Repeat("x", 10000)
	r := hn.post(toolCall(1, "region", `{"query":"`+big+`"}`), "Mcp-Session-Id", sid)
	if r.status != 200 || r.header.Get("Content-Length") != fmt.Sprint(len(r.body)) || !strings.Contains(r.body, big) {
		t.Fatalf("status %d, Content-Length %q, %d bytes", r.status, r.header.Get("Content-Length"), len(r.body))
	}
}

// TestStreamsOutliveReadTimeout: with an http.Server ReadTimeout, which the
// examples set, a request's headers and body are bounded but neither a
// session's standalone stream nor a call longer than the timeout is cut
// (virtual time, in a synctest bubble).
func TestStreamsOutliveReadTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hn := newHarnessOn(t, nil, true, func(s *http.Server) { s.ReadTimeout = time.Second })
		sid := hn.initialize(mcp.Version20251125)
		r := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
		if r.status != 200 {
			t.Fatalf("GET: %d %s", r.status, r.body)
		}
		rd := sse.NewReader(r.resp.Body)
		if _, err := rd.Next(); err != nil {
			t.Fatalf("priming event: %v", err)
		}
		posted := hn.postAsync(toolCall(1, "slow", `{"key":"k"}`), "Mcp-Session-Id", sid)
		recv(t, hn.started, "the call")
		time.Sleep(5 * time.Second) // five read timeouts, in virtual time: the behaviour under test
		synctest.Wait()
		hn.release <- struct{}{}
		if res := recv(t, posted, "the reply"); res.status != 200 || !strings.Contains(res.body, `"slow":true`) {
			t.Fatalf("a call longer than ReadTimeout: %d %s", res.status, res.body)
		}
		hn.h.session(sid).sendUnrelated([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
		if e, err := rd.Next(); err != nil || !strings.Contains(e.Data, "list_changed") {
			t.Fatalf("the standalone stream after five read timeouts: %+v, %v", e, err)
		}
		r.resp.Body.Close()
	})
}
