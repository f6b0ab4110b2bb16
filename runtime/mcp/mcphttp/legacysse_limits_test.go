package mcphttp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
)

// TestLegacySSEServerTimeouts: an http.Server's ReadTimeout and WriteTimeout
// bound requests, not the life of an event stream. It runs in a synctest
// bubble, so the timeouts pass in virtual time.
func TestLegacySSEServerTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := NewHandler(newTestServer(), nil)
		t.Cleanup(func() { h.Close() })
		const timeout = 50 * time.Millisecond
		ts := rpctest.NewPipeServer(t, h, func(s *http.Server) {
			s.ReadTimeout = timeout
			s.WriteTimeout = timeout
		})
		c := dialSSE(t, ts, "/", "")
		c.initialize()
		// Let both timeouts pass with the stream open and idle. This sleep
		// stays: in the bubble it is virtual time passing, the behaviour
		// under test, and synctest.Wait then settles every goroutine.
		time.Sleep(4 * timeout)
		synctest.Wait()
		if msgs := c.call(`{"jsonrpc":"2.0","id":"late","method":"ping"}`); len(msgs) != 1 || !strings.Contains(msgs[0], `"late"`) {
			t.Errorf("ping after the server's timeouts: %q", msgs)
		}
	})
}

func TestLegacySSETooManyCalls(t *testing.T) {
	rpctest.CheckLeaks(t)
	h, ts := newLegacyServer(t, nil)
	c := dialSSE(t, ts, "/mcp", "")
	c.initialize()
	for i := range legacyMaxCalls {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{"key":%q}}}`, 100+i, uniqueKey(t)))
	}
	resp, body := c.post(c.endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("call %d: status %d, want 429", legacyMaxCalls+1, resp.StatusCode)
	}
	wantErrorBody(t, resp, body, -32000, "")
	c.close() // cancels the blocked calls
	eventually(t, h, "the session has ended", func() bool { return h.SessionCount() == 0 })
}

func TestLegacySSESlowReader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l := newSSELegacy(NewHandler(newTestServer(), nil))
	sess := &sseSession{id: "s", ctx: ctx, cancel: cancel, logger: slog.New(slog.DiscardHandler), wake: make(chan struct{}, 1),
		l: l, rc: http.NewResponseController(httptest.NewRecorder()), ss: l.h.srv.NewSession()}
	l.sessions[sess.id] = sess
	sess.send([]byte(`{"a":1}`))
	if got := sess.admit(); got != 0 {
		t.Fatalf("admit with 7 bytes buffered: %d", got)
	}
	sess.buffered = legacyMaxPending
	if got := sess.admit(); got != http.StatusTooManyRequests {
		t.Fatalf("admit with a full stream: %d, want 429", got)
	}
	sess.buffered = legacyMaxBuffered - 2
	sess.send([]byte(`{"b":2}`))
	if ctx.Err() == nil || !sess.condemned || l.count() != 0 {
		t.Fatal("a message beyond the bound did not condemn and remove the session")
	}
	if got, _ := sess.take(nil); len(got) != 0 {
		t.Errorf("a condemned session still holds %q", got)
	}
}
