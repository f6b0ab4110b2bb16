package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
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
	srv := mcp.NewServer(mcp.Implementation{Name: "prime", Version: "1"}, nil)
	srv.AddTools(mcp.Tool{Name: "primed", InputSchema: json.RawMessage(`{"type":"object"}`),
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

// A call's event stream that ends before the call (mcp.CloseStream, here)
// said Connection: close in its headers, so the client does not keep the
// connection, which the server closes, for a request of its own; the next
// request goes through.
func TestEarlyEndSaysConnectionClose(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	hn.client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hn.client.CloseIdleConnections)
	sid := hn.initialize(mcp.Version20251125)
	r := hn.post(toolCall(1, "poll", `{"n":1,"key":"p"}`), "Mcp-Session-Id", sid)
	if r.resp == nil {
		t.Fatalf("not an event stream: %d %s", r.status, r.body)
	}
	if !r.resp.Close {
		t.Fatalf("the event stream's headers do not say Connection: close: %v", r.header)
	}
	evs := events(t, r)
	if !recv(t, hn.closed, "CloseStream") {
		t.Fatal("CloseStream returned false")
	}
	recv(t, hn.started, "the call waits")
	ping := hn.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Session-Id", sid)
	wantJSON(t, ping, http.StatusOK, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	res := hn.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", evs[len(evs)-1].ID)
	hn.release <- struct{}{}
	if after := events(t, res); len(after) == 0 || !strings.Contains(after[len(after)-1].Data, `"polled":true`) {
		t.Fatalf("events after the close: %+v", after)
	}
}
