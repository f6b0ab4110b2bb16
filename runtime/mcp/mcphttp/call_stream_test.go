package mcphttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// A resume that takes over a stream whose POST is still open ends the POST's
// response cleanly; the rest of the call's messages go to the resumed
// stream, live, exactly once.
func TestResumeTakesOverOpenStream(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP/1.1", true: "HTTP/2"}[h2], func(t *testing.T) {
			rpctest.CheckLeaks(t)
			cs := newCallServer(t, nil, h2)
			sid := cs.initialize()
			cs.gate <- struct{}{} // step 0 goes on at once: its message starts the stream
			resp := cs.call(sid, "steps")
			recv(t, cs.started, "step 0")
			rd := sse.NewReader(resp.Body)
			nextEvent(t, rd) // priming
			first := nextEvent(t, rd)
			if !strings.Contains(first.Data, `"data":0`) {
				t.Fatalf("first event %+v", first)
			}
			recv(t, cs.started, "step 1")
			get := cs.do(http.MethodGet, "", "Mcp-Session-Id", sid, "Last-Event-ID", first.ID)
			if get.StatusCode != http.StatusOK {
				t.Fatalf("resume: %d", get.StatusCode)
			}
			// The POST's response has ended, and nothing more came on it.
			if e, err := rd.Next(); !errors.Is(err, io.EOF) {
				t.Fatalf("the POST's stream after the resume: %+v, %v", e, err)
			}
			cs.gate <- struct{}{}
			recv(t, cs.started, "step 2")
			cs.gate <- struct{}{}
			wantData(t, readAllEvents(t, get.Body), `"data":1`, `"data":2`, `"steps":3`)
		})
	}
}

// Ending the session ends the POST's event stream at once, even while its
// call (which ignores its cancellation) goes on.
func TestSessionEndEndsOpenStream(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP/1.1", true: "HTTP/2"}[h2], func(t *testing.T) {
			rpctest.CheckLeaks(t)
			cs := newCallServer(t, nil, h2)
			sid := cs.initialize()
			resp := cs.call(sid, "stubborn")
			recv(t, cs.started, "the call")
			done := make(chan []sse.Event, 1)
			go func() { done <- readAllEvents(t, resp.Body) }()
			del := cs.do(http.MethodDelete, "", "Mcp-Session-Id", sid)
			if del.StatusCode != http.StatusNoContent {
				t.Fatalf("DELETE: %d", del.StatusCode)
			}
			wantData(t, recv(t, done, "the end of the stream"), "", "started")
			cs.gate <- struct{}{}
		})
	}
}

// With Options.SSE, the priming event of a call's stream is not held back
// until the call ends: a client sees it (and the headers) while the call
// still runs.
func TestPrimingEventSentSoon(t *testing.T) {
	rpctest.CheckLeaks(t)
	cs := newCallServer(t, &Options{SSE: true}, false)
	sid := cs.initialize()
	posted := make(chan *http.Response, 1)
	go func() { posted <- cs.call(sid, "slow") }()
	recv(t, cs.started, "the call")
	resp := recv(t, posted, "the response's headers")
	rd := sse.NewReader(resp.Body)
	if e := nextEvent(t, rd); !e.HasID || e.Data != "" || e.Retry == 0 {
		t.Fatalf("priming event %+v", e)
	}
	cs.gate <- struct{}{}
	wantData(t, readAllEvents(t, resp.Body), `"slow":true`)
}

// A call whose client went away while its response was still JSON goes on
// and finishes, uncancelled; the messages it sends then are dropped (nobody
// could resume a JSON response).
func TestJSONCallOutlivesClient(t *testing.T) {
	rpctest.CheckLeaks(t)
	cs := newCallServer(t, nil, false)
	sid := cs.initialize()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, cs.url, strings.NewReader(toolCallBody("steps")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", sid)
	errc := make(chan error, 1)
	go func() {
		resp, err := cs.client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	recv(t, cs.started, "step 0")
	cancel()
	if err := recv(t, errc, "the client's end"); err == nil {
		t.Fatal("the cancelled request succeeded")
	}
	s := cs.h.session(sid)
	// The server notices the client is gone (its request's context ends)
	// only when its connection reports it; wait for that.
	s.mu.Lock()
	c := s.calls[0]
	s.mu.Unlock()
	select {
	case <-c.cctx.vals.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not notice the client went away")
	}
	for i := range 3 {
		if i > 0 {
			recv(t, cs.started, "a step")
		}
		cs.gate <- struct{}{}
	}
	eventually(t, cs.h, "the call finishes", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.calls) == 0
	})
	s.mu.Lock()
	named := s.nstreams
	s.mu.Unlock()
	if named != 0 {
		t.Fatalf("%d streams named for a call whose client is gone", named)
	}
}

// With Options.SSE and keep-alives no more frequent than primeDelay, the
// priming event of a slow call waits in the handler's queue (primer.go),
// goes out on its own, and the keep-alive comments follow it.
func TestPrimedStreamKeepsAlive(t *testing.T) {
	rpctest.CheckLeaks(t)
	cs := newCallServer(t, &Options{SSE: true, KeepAlive: 2 * primeDelay}, false)
	sid := cs.initialize()
	posted := make(chan *http.Response, 1)
	go func() { posted <- cs.call(sid, "slow") }()
	recv(t, cs.started, "the call")
	resp := recv(t, posted, "the response's headers")
	br := bufio.NewReader(resp.Body)
	var priming []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read the priming event: %v", err)
		}
		if line == "\n" {
			break
		}
		priming = append(priming, line)
	}
	if len(priming) < 2 || !strings.HasPrefix(priming[0], "id: ") || !strings.HasPrefix(priming[1], "retry: ") {
		t.Fatalf("priming event %q", priming)
	}
	readKeepAlive(t, br)
	readKeepAlive(t, br)
	cs.gate <- struct{}{}
	wantData(t, readAllEvents(t, br), `"slow":true`)
}
