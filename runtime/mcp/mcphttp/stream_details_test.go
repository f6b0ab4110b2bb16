package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// flushRecorder is a ResponseWriter that notes whether a priming event (an
// "id:" line) had been flushed to the client, keeping the writer's other
// interfaces through Unwrap (the connection can still be taken over).
type flushRecorder struct {
	http.ResponseWriter
	mu      sync.Mutex
	written bytes.Buffer
	primed  bool
}

func (w *flushRecorder) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.written.Write(b)
	w.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w *flushRecorder) Flush() {
	w.mu.Lock()
	if bytes.Contains(w.written.Bytes(), []byte("id:")) {
		w.primed = true
	}
	w.mu.Unlock()
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *flushRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *flushRecorder) wasPrimed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.primed
}

// The priming event of a call's event stream (Options.SSE) goes out at
// once, as the spec says: it has reached the connection, flushed, before
// the tool even runs.
func TestPrimingEventFlushedAtOnce(t *testing.T) {
	rpctest.CheckLeaks(t)
	type recKey struct{}
	srv := mcpserver.New(mcp.Implementation{Name: "prime", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "primed", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			rec, _ := ctx.Value(recKey{}).(*flushRecorder)
			if rec == nil {
				return nil, nil
			}
			if rec.wasPrimed() {
				return json.RawMessage(`{"primed":true}`), nil
			}
			return json.RawMessage(`{"primed":false}`), nil
		}})
	h := NewHandler(srv, &Options{SSE: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &flushRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), recKey{}, rec)))
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	hn := &harness{t: t, h: h, ts: ts, url: ts.URL + "/mcp"}
	sid := hn.initialize(mcp.Version20251125)
	evs := events(t, hn.post(toolCall(1, "primed", `{}`), "Mcp-Session-Id", sid))
	if len(evs) != 2 || evs[0].Data != "" || !evs[0].HasID {
		t.Fatalf("events: %+v", evs)
	}
	if !strings.Contains(evs[1].Data, `"primed":true`) {
		t.Fatalf("the priming event had not been flushed when the tool ran: %s", evs[1].Data)
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
