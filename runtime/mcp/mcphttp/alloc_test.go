package mcphttp

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A legacy tools/call answered with an event stream (Options.SSE) through
// the handler allocates exactly this much, request and recorder included:
// no timer, no context and no ResponseController of its own per call.
func TestSSECallAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("exact allocation counts do not hold under the race detector")
	}
	h, sid := recordedSession(t, &Options{SSE: true})
	body := toolCall(1, "add", `{"a":1,"b":2}`)
	call := func() {
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Mcp-Session-Id", sid)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"sum":3`) {
			t.Fatal(w.Code, w.Body.String())
		}
	}
	call()
	const want = 40
	if n := testing.AllocsPerRun(200, call); n != want {
		t.Errorf("%v allocations per call, want %d", n, want)
	}
	// A ResponseWriter that can be hijacked, as net/http's on HTTP/1.x:
	// the call runs on the POST's goroutine (inline.go), its headers held
	// until it answers, with no worker and no wake-up channel (one
	// allocation fewer than on a worker), and written with its priming
	// event and answer in one write (one growth of the recorder's body
	// fewer), their ids written there from their sequence numbers in the
	// MemoryEventStore, no string made for them (two allocations fewer).
	// Both are measured here past the
	// session's 200th stream, whose names strconv.Itoa allocates (it keeps
	// those below 100, as most of the calls above were).
	inline := func() {
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Mcp-Session-Id", sid)
		w := hijackableRecorder{httptest.NewRecorder()}
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Header().Get("Connection") != "" || !strings.Contains(w.Body.String(), `"sum":3`) {
			t.Fatal(w.Code, w.Header(), w.Body.String())
		}
	}
	inline()
	const wantInline = 37
	if n := testing.AllocsPerRun(200, inline); n != wantInline {
		t.Errorf("inline: %v allocations per call, want %d", n, wantInline)
	}
	if n := testing.AllocsPerRun(200, call); n != wantInline+4 {
		t.Errorf("on a worker, past stream 400: %v allocations per call, want %d", n, wantInline+4)
	}
}

// hijackableRecorder is a recorder that says it can be hijacked (it
// cannot), which makes a legacy call run inline.
type hijackableRecorder struct{ *httptest.ResponseRecorder }

func (hijackableRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, errors.New("hijackableRecorder: no connection")
}

// TestModernCallAllocs holds a 2026-07-28 tools/call (JSON and
// Options.SSE) through the handler at an exact allocation count, request,
// recorder and the request's own cancelable context (as net/http gives
// it) included.
func TestModernCallAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("exact allocation counts do not hold under the race detector")
	}
	for _, tc := range []struct {
		name string
		sse  bool
		want float64
	}{{"json", false, 42}, {"sse", true, 43}} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHandler(benchServer(`{"type":"object"}`), &Options{SSE: tc.sse})
			defer h.Close()
			body := modernCall(1, "add", `{"a":1,"b":2}`)
			hdr := modernHeaders("tools/call", "add")
			call := func() {
				ctx, cancel := context.WithCancel(context.Background())
				r := httptest.NewRequestWithContext(ctx, "POST", "/", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				for i := 0; i < len(hdr); i += 2 {
					r.Header.Set(hdr[i], hdr[i+1])
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				cancel()
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"sum":3`) {
					t.Fatal(w.Code, w.Body.String())
				}
			}
			call()
			if n := testing.AllocsPerRun(200, call); n != tc.want {
				t.Errorf("%v allocations per call, want %v", n, tc.want)
			}
		})
	}
}
