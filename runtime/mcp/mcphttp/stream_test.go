package mcphttp

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// streamOf returns the stream part of an event id ("<stream>_<seq>").
func streamOf(t *testing.T, id string) string {
	t.Helper()
	name, _, ok := parseEventID(id)
	if !ok {
		t.Fatalf("event id %q does not name its stream", id)
	}
	return name
}

// A legacy call that notifies before its result answers with an event
// stream: a priming event, then every message with an id of the stream.
func TestLegacyStreamableSSE(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{RetryInterval: 1500 * time.Millisecond})
	sid := hn.initialize(mcp.Version20251125)
	if r := hn.post(toolCall(1, "add", `{"a":1,"b":2}`), "Mcp-Session-Id", sid); r.status != 200 || r.resp != nil {
		t.Fatalf("add is not JSON: %d", r.status)
	}
	r := hn.post(toolCall(2, "log", `{}`), "Mcp-Session-Id", sid)
	if r.status != 200 || r.header.Get("X-Accel-Buffering") != "no" || r.header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("log: %d %v", r.status, r.header)
	}
	evs := events(t, r)
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3: %+v", len(evs), evs)
	}
	prime, note, res := evs[0], evs[1], evs[2]
	if !prime.HasID || prime.Data != "" || prime.Retry != 1500*time.Millisecond {
		t.Fatalf("priming event %+v", prime)
	}
	if !strings.Contains(note.Data, `"notifications/message"`) || !strings.Contains(res.Data, `"id":2,"result"`) {
		t.Fatalf("events %+v", evs)
	}
	seen := map[string]bool{}
	for _, e := range evs {
		if !e.HasID || seen[e.ID] || streamOf(t, e.ID) != streamOf(t, prime.ID) {
			t.Fatalf("bad event ids: %+v", evs)
		}
		seen[e.ID] = true
	}
	// Another stream of the session has other ids, naming another stream.
	evs2 := events(t, hn.post(toolCall(3, "log", `{}`), "Mcp-Session-Id", sid))
	if len(evs2) != 3 || seen[evs2[0].ID] || streamOf(t, evs2[0].ID) == streamOf(t, prime.ID) {
		t.Fatalf("second stream %+v", evs2)
	}
}

func TestOptionSSE(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{SSE: true})
	sid := hn.initialize(mcp.Version20251125)
	evs := events(t, hn.post(toolCall(1, "add", `{"a":1,"b":2}`), "Mcp-Session-Id", sid))
	if len(evs) != 2 || evs[0].Data != "" || !strings.Contains(evs[1].Data, `"sum":3`) {
		t.Fatalf("events %+v", evs)
	}
	evs = events(t, hn.post(modernCall(1, "add", `{"a":1,"b":2}`), modernHeaders("tools/call", "add")...))
	if len(evs) != 1 || evs[0].HasID || !strings.Contains(evs[0].Data, `"sum":3`) {
		t.Fatalf("modern events %+v", evs)
	}
}

// A stream dropped in the middle of a call and resumed with Last-Event-ID
// delivers every message exactly once, in order.
func TestResumeExactlyOnce(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	posted := hn.postAsync(toolCall(1, "steps", `{"n":6,"key":"r"}`), "Mcp-Session-Id", sid)
	hn.step("a step")
	r := recv(t, posted, "the stream")
	rd := sse.NewReader(r.resp.Body)
	var got []string
	var ids []string
	next := func(rd *sse.Reader) sse.Event {
		t.Helper()
		e, err := rd.Next()
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if e.Data != "" {
			got = append(got, e.Data)
			ids = append(ids, e.ID)
		}
		return e
	}
	next(rd) // priming
	next(rd) // 0
	hn.step("a step")
	last := next(rd) // 1
	// The connection breaks; the call goes on, and its messages are kept.
	r.resp.Body.Close()
	hn.step("a step")             // 2
	hn.step("a step")             // 3
	recv(t, hn.started, "step 4") // 3 was sent
	res := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", last.ID)
	if res.status != 200 {
		t.Fatalf("resume: %d %s", res.status, res.body)
	}
	rd = sse.NewReader(res.resp.Body)
	next(rd) // 2, replayed
	next(rd) // 3, replayed
	hn.release <- struct{}{}
	next(rd) // 4, live
	hn.step("a step")
	next(rd) // 5
	next(rd) // the response
	if e, err := rd.Next(); err == nil {
		t.Fatalf("event after the response: %+v", e)
	}
	want := []string{`0`, `1`, `2`, `3`, `4`, `5`, `"steps":6`}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Fatalf("message %d is %s, want one with %s", i, got[i], w)
		}
		if i > 0 && ids[i] == ids[i-1] {
			t.Fatalf("duplicate id %s", ids[i])
		}
	}
	// The stream has ended; resuming it again replays its end.
	res = hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", ids[4])
	evs := events(t, res)
	if len(evs) != 2 || !strings.Contains(evs[0].Data, `"data":5`) || !strings.Contains(evs[1].Data, `"steps":6`) {
		t.Fatalf("replay of an ended stream: %+v", evs)
	}
	// Unknown ids cannot be resumed.
	wantError(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", "nope"), 400, -32600, "null")
	wantError(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", "1_999"), 400, -32600, "null")
}

// TestResumeCancelledStream: a client may resume the stream of a call it
// cancelled (the TypeScript SDK does, with Last-Event-ID). It gets what the
// stream said after that event, and once nothing is left, 204 No Content:
// the event stream's word for "do not reconnect", so the client stops
// without opening another stream or seeing an error.
func TestResumeCancelledStream(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	posted := hn.postAsync(toolCall(1, "steps", `{"n":6,"key":"c"}`), "Mcp-Session-Id", sid)
	hn.step("step 0")
	r := recv(t, posted, "the stream")
	rd := sse.NewReader(r.resp.Body)
	prime, err := rd.Next()
	if err != nil || !prime.HasID || prime.Data != "" {
		t.Fatalf("priming event %+v, %v", prime, err)
	}
	if e, err := rd.Next(); err != nil || !strings.Contains(e.Data, `"data":0`) {
		t.Fatalf("step 0: %+v, %v", e, err)
	}
	hn.step("step 1")
	recv(t, hn.started, "step 2") // step 1 was sent
	if r := hn.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "Mcp-Session-Id", sid); r.status != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	recv(t, hn.cancelled, "the call to see its cancellation")
	// The call's stream ends with no response.
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || strings.Contains(e.Data, `"result"`) {
			t.Fatalf("the cancelled call's stream: %+v, %v", e, err)
		}
	}
	eventually(t, hn.h, "the call has ended", func() bool {
		hn.h.mu.Lock()
		defer hn.h.mu.Unlock()
		s := hn.h.sessions[sid]
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.calls) == 0
	})
	// Resumed from its priming event: step 0 and step 1, then nothing more.
	evs := events(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", prime.ID))
	if len(evs) != 2 || !strings.Contains(evs[0].Data, `"data":0`) || !strings.Contains(evs[1].Data, `"data":1`) {
		t.Fatalf("replay of the cancelled stream: %+v", evs)
	}
	// Resumed from its last event: nothing is left.
	res := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", evs[1].ID)
	if res.status != http.StatusNoContent || res.body != "" || res.resp != nil {
		t.Fatalf("resume of an ended stream with nothing left: %d %q %v", res.status, res.body, res.header)
	}
	// The standalone stream is still the client's to open.
	st := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Accept", "text/event-stream")
	if st.status != http.StatusOK {
		t.Fatalf("standalone stream after the resume: %d %s", st.status, st.body)
	}
	st.resp.Body.Close()
}

// mcpserver.CloseStream ends the POST's response while the call goes on; the
// client polls with GET and Last-Event-ID.
func TestCloseStreamPolling(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   string
		before int // events before the close: priming, and "before"
	}{
		{"after a notification", `{"n":1,"key":"p"}`, 2},
		{"from a JSON response", `{"n":0,"key":"p"}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			hn := newHarness(t, nil)
			sid := hn.initialize(mcp.Version20251125)
			evs := events(t, hn.post(toolCall(1, "poll", tc.args), "Mcp-Session-Id", sid))
			if !recv(t, hn.closed, "CloseStream") {
				t.Fatal("CloseStream returned false")
			}
			if len(evs) != tc.before || evs[0].Data != "" || evs[0].Retry == 0 {
				t.Fatalf("events before the close: %+v", evs)
			}
			recv(t, hn.started, "the call waits")
			res := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", evs[len(evs)-1].ID)
			hn.release <- struct{}{}
			after := events(t, res)
			if n := len(after); n == 0 || !strings.Contains(after[n-1].Data, `"polled":true`) {
				t.Fatalf("events after the close: %+v", after)
			}
			if tc.before == 2 && (len(after) != 2 || !strings.Contains(after[0].Data, "after")) {
				t.Fatalf("events after the close: %+v", after)
			}
		})
	}
	t.Run("2026-07-28", func(t *testing.T) {
		rpctest.CheckLeaks(t)
		hn := newHarness(t, nil)
		pollWithoutPolling(t, hn, "for a 2026-07-28 call", modernCall(1, "poll", `{"key":"p"}`), modernHeaders("tools/call", "poll")...)
	})
}

// A legacy call whose client disconnected goes on; its response is kept for
// a resume.
func TestDisconnectIsNotCancel(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	r := hn.post(toolCall(1, "poll", `{"n":1,"key":"d"}`), "Mcp-Session-Id", sid)
	rd := sse.NewReader(r.resp.Body)
	prime, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	recv(t, hn.closed, "CloseStream")
	recv(t, hn.started, "the call waits")
	r.resp.Body.Close()
	hn.release <- struct{}{}
	s := hn.h.session(sid)
	eventually(t, hn.h, "the call finishes", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.calls) == 0
	})
	select {
	case k := <-hn.cancelled:
		t.Fatalf("call %q was cancelled", k)
	default:
	}
	evs := events(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", prime.ID))
	if len(evs) != 3 || !strings.Contains(evs[2].Data, `"polled":true`) {
		t.Fatalf("replayed %+v", evs)
	}
}

// An open legacy stream carries keep-alive comments while it waits.
func TestLegacyKeepAlive(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{KeepAlive: 5 * time.Millisecond})
	sid := hn.initialize(mcp.Version20251125)
	posted := hn.postAsync(toolCall(1, "steps", `{"n":2,"key":"k"}`), "Mcp-Session-Id", sid)
	hn.step("step 0")
	for _, r := range []reply{hn.do(http.MethodGet, "", "Mcp-Session-Id", sid), recv(t, posted, "the stream")} {
		readKeepAlive(t, bufio.NewReader(r.resp.Body))
		r.resp.Body.Close()
	}
	hn.step("step 1")
}

// Before 2025-11-25 there are no priming events and no polling.
func TestNoPrimingBefore20251125(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20250618)
	evs := events(t, hn.post(toolCall(1, "log", `{}`), "Mcp-Session-Id", sid))
	if len(evs) != 2 || evs[0].Data == "" || !evs[0].HasID || !strings.Contains(evs[1].Data, `"result"`) {
		t.Fatalf("events %+v", evs)
	}
	// The stream can still be resumed from a message's id.
	again := events(t, hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", evs[0].ID))
	if len(again) != 1 || again[0].ID != evs[1].ID {
		t.Fatalf("resumed %+v", again)
	}
	pollWithoutPolling(t, hn, "before 2025-11-25", toolCall(2, "poll", `{"key":"p"}`), "Mcp-Session-Id", sid)
}

// pollWithoutPolling runs the "poll" tool where there is no polling (when
// says where): mcpserver.CloseStream returns false, and the reply is JSON.
func pollWithoutPolling(t *testing.T, hn *harness, when, body string, kv ...string) {
	t.Helper()
	done := hn.postAsync(body, kv...)
	if recv(t, hn.closed, "CloseStream") {
		t.Fatal("CloseStream returned true " + when)
	}
	hn.step("the call waits")
	if r := recv(t, done, "the reply"); r.status != 200 || !strings.Contains(r.body, `"polled":true`) {
		t.Fatalf("reply: %d %s", r.status, r.body)
	}
}
