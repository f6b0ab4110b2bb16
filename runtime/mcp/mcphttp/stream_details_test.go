package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// The priming event of a call's event stream (Options.SSE) reaches the
// client while the call runs: here the tool answers only once the client
// has read it. (A call that answers at once sends it with its response, in
// one write.)
func TestPrimingEventSentWhileCallRuns(t *testing.T) {
	rpctest.CheckLeaks(t)
	read := make(chan struct{})
	srv := mcpserver.New(mcp.Implementation{Name: "prime", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "after_priming", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			select {
			case <-read:
				return json.RawMessage(`{"primed":true}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
	h := NewHandler(srv, &Options{SSE: true})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	hn := &harness{t: t, h: h, ts: ts, url: ts.URL + "/mcp"}
	sid := hn.initialize(mcp.Version20251125)
	var r reply
	withinTime(t, "the headers of the call's event stream", func() {
		r = hn.post(toolCall(1, "after_priming", `{}`), "Mcp-Session-Id", sid)
	})
	if r.resp == nil {
		t.Fatalf("not an event stream: %d %s", r.status, r.body)
	}
	rd := sse.NewReader(r.resp.Body)
	var ev sse.Event
	withinTime(t, "the priming event, the tool waiting for it", func() { ev = nextEvent(t, rd) })
	if ev.Data != "" || !ev.HasID {
		t.Fatalf("first event: %+v, want a priming event (an id, no data)", ev)
	}
	close(read)
	if ev = nextEvent(t, rd); !strings.Contains(ev.Data, `"primed":true`) || !ev.HasID {
		t.Fatalf("second event: %+v, want the response", ev)
	}
}

// A call's event stream that ends before the call (mcpserver.CloseStream, here)
// leaves its HTTP/1.1 connection usable: the client's next request goes on
// that same connection and gets its answer, and the call finishes, its
// result delivered on a resume. A call that asks for progress runs on its
// own goroutine from the start; one expected to answer JSON runs on the
// POST's goroutine, so the first that streams says Connection: close (the
// client opens a new connection, and sees no error either), and its tool's
// later calls run on their own goroutines.
func TestEarlyEndKeepsConnection(t *testing.T) {
	rpctest.CheckLeaks(t)
	var conns atomic.Int32
	hn := newHarnessOn(t, nil, false, func(s *http.Server) {
		s.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
	})
	hn.client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hn.client.CloseIdleConnections)
	sid := hn.initialize(mcp.Version20251125)
	ping := func(id int) {
		t.Helper()
		r := hn.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id), "Mcp-Session-Id", sid)
		wantJSON(t, r, http.StatusOK, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id))
	}
	ping(1)
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for the first requests, want 1", n)
	}
	for i, tc := range []struct {
		name   string
		meta   string
		closes bool // the stream says Connection: close
	}{
		{"progress", `,"_meta":{"progressToken":"t"}`, false},
		{"first without progress", "", true},
		{"next without progress", "", false},
	} {
		before := conns.Load()
		id := 10 * (i + 1)
		r := hn.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"poll","arguments":{"n":1,"key":"p"}%s}}`, id, tc.meta),
			"Mcp-Session-Id", sid)
		if r.resp == nil {
			t.Fatalf("%s: not an event stream: %d %s", tc.name, r.status, r.body)
		}
		if r.resp.Close != tc.closes {
			t.Fatalf("%s: Connection: close is %v, want %v (%v)", tc.name, r.resp.Close, tc.closes, r.header)
		}
		evs := events(t, r)
		if !recv(t, hn.closed, "CloseStream") {
			t.Fatalf("%s: CloseStream returned false", tc.name)
		}
		recv(t, hn.started, "the call waits")
		ping(id + 1) // on the connection the stream left, unless it said close
		want := before
		if tc.closes {
			want++
		}
		if n := conns.Load(); n != want {
			t.Fatalf("%s: %d connections after the early end, want %d", tc.name, n, want)
		}
		if len(evs) == 0 || evs[len(evs)-1].ID == "" {
			t.Fatalf("%s: no event to resume from: %+v", tc.name, evs)
		}
		res := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", evs[len(evs)-1].ID)
		hn.release <- struct{}{}
		after := events(t, res)
		if len(after) == 0 || !strings.Contains(after[len(after)-1].Data, fmt.Sprintf(`"id":%d`, id)) ||
			!strings.Contains(after[len(after)-1].Data, `"polled":true`) {
			t.Fatalf("%s: events after the close: %+v", tc.name, after)
		}
		ping(id + 2)
		if n := conns.Load(); n != want {
			t.Fatalf("%s: %d connections after the resume, want %d", tc.name, n, want)
		}
	}
}

// An Options.SSE call on HTTP/1.1 runs on its POST's goroutine, its
// headers waiting for its answer: one that answers at once is an event
// stream (the priming event, then the answer) that leaves its connection
// usable, with no Connection: close. One whose stream must go out before
// its answer (a log message here, or CloseStream) says Connection: close,
// the client's next request opens a new connection and sees no error, and
// its tool's later calls run on their own goroutines, keeping theirs.
func TestSSEInlineCallKeepsConnection(t *testing.T) {
	rpctest.CheckLeaks(t)
	var conns atomic.Int32
	hn := newHarnessOn(t, &Options{SSE: true}, false, func(s *http.Server) {
		s.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
	})
	hn.client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hn.client.CloseIdleConnections)
	sid := hn.initialize(mcp.Version20251125)
	start := conns.Load()
	call := func(id int, tool string, closes bool, logs int) {
		t.Helper()
		r := hn.post(toolCall(id, tool, `{"a":1,"b":2}`), "Mcp-Session-Id", sid)
		if r.resp == nil {
			t.Fatalf("%s %d: not an event stream: %d %s", tool, id, r.status, r.body)
		}
		if r.resp.Close != closes {
			t.Fatalf("%s %d: Connection: close is %v, want %v (%v)", tool, id, r.resp.Close, closes, r.header)
		}
		evs := events(t, r)
		if len(evs) != 2+logs || evs[0].Data != "" || !evs[0].HasID {
			t.Fatalf("%s %d: events %+v, want a priming event, %d log messages and the answer", tool, id, evs, logs)
		}
		last := evs[len(evs)-1]
		if !last.HasID || !strings.Contains(last.Data, fmt.Sprintf(`"id":%d`, id)) || !strings.Contains(last.Data, `"result"`) {
			t.Fatalf("%s %d: last event %+v, want the answer", tool, id, last)
		}
	}
	for id := 1; id <= 3; id++ {
		call(id, "add", false, 0)
	}
	if n := conns.Load(); n != start {
		t.Fatalf("%d connections opened by calls answered at once, want none", n-start)
	}
	call(4, "log", true, 1)
	call(5, "add", false, 0)
	if n := conns.Load(); n != start+1 {
		t.Fatalf("%d connections opened after a stream that said close, want 1", n-start)
	}
	call(6, "log", false, 1) // on its own goroutine now
	call(7, "add", false, 0)
	if n := conns.Load(); n != start+1 {
		t.Fatalf("%d connections opened, want 1", n-start)
	}
}

// An inline Options.SSE call that outlasts primeDelay has its priming event
// flushed while it runs, saying Connection: close; its tool's next
// slowRuns calls run on their own goroutines (a slow one then says no
// close), and the one after runs inline again.
func TestSSESlowCallRunsAsideForAWhile(t *testing.T) {
	rpctest.CheckLeaks(t)
	read := make(chan struct{})
	srv := mcpserver.New(mcp.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "maybe", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			if !strings.Contains(string(args), "wait") {
				return json.RawMessage(`{"quick":true}`), nil
			}
			select {
			case <-read:
				return json.RawMessage(`{"primed":true}`), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
	h := NewHandler(srv, &Options{SSE: true})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	hn := &harness{t: t, h: h, ts: ts, url: ts.URL + "/mcp"}
	hn.client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hn.client.CloseIdleConnections)
	sid := hn.initialize(mcp.Version20251125)
	id := 0
	slow := func(closes bool) {
		t.Helper()
		id++
		var r reply
		withinTime(t, "the headers of a slow call's event stream", func() {
			r = hn.post(toolCall(id, "maybe", `{"wait":true}`), "Mcp-Session-Id", sid)
		})
		if r.resp == nil {
			t.Fatalf("call %d: not an event stream: %d %s", id, r.status, r.body)
		}
		if r.resp.Close != closes {
			t.Fatalf("call %d: Connection: close is %v, want %v", id, r.resp.Close, closes)
		}
		rd := sse.NewReader(r.resp.Body)
		if ev := nextEvent(t, rd); ev.Data != "" || !ev.HasID {
			t.Fatalf("call %d: first event %+v, want a priming event", id, ev)
		}
		read <- struct{}{}
		if ev := nextEvent(t, rd); !strings.Contains(ev.Data, `"primed":true`) {
			t.Fatalf("call %d: second event %+v, want the answer", id, ev)
		}
	}
	quick := func() {
		t.Helper()
		id++
		r := hn.post(toolCall(id, "maybe", `{}`), "Mcp-Session-Id", sid)
		if evs := events(t, r); r.resp.Close || len(evs) != 2 || !strings.Contains(evs[1].Data, `"quick":true`) {
			t.Fatalf("call %d: Connection: close %v, events %+v", id, r.resp.Close, evs)
		}
	}
	quick()
	slow(true)  // inline: its priming event goes out primeDelay on
	slow(false) // on its own goroutine
	for range slowRuns - 1 {
		quick()
	}
	slow(true) // inline again
}

// TestStreamersFreeSpentSlots fills the handler's memory of streaming
// methods and tools with slow ones, then spends their runs aside: a
// streaming tool noted next takes a freed slot (it was dropped while the
// memory was full of tools whose calls run inline again).
func TestStreamersFreeSpentSlots(t *testing.T) {
	h := NewHandler(benchServer(`{"type":"object"}`), nil)
	defer h.Close()
	for i := range maxStreamers {
		h.noteSlow([]byte(`"slow` + strconv.Itoa(i) + `"`))
	}
	h.noteStreamer([]byte(`"streams"`))
	if _, ok := (*h.streamers.Load())[`"streams"`]; ok {
		t.Fatal("noted past maxStreamers while every slot is in use")
	}
	for _, left := range *h.streamers.Load() {
		left.Store(0) // its slowRuns calls ran aside
	}
	h.noteStreamer([]byte(`"streams"`))
	m := *h.streamers.Load()
	if left, ok := m[`"streams"`]; !ok || left != nil {
		t.Fatalf("the streaming tool is not noted for good: %v %v", ok, left)
	}
	if len(m) != 1 {
		t.Fatalf("%d entries kept, want the streaming tool's alone", len(m))
	}
}
