package interop

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkCancel starts a reindex over enough notes to take a while, cancels it
// after the first progress notification and checks, on the wire, that no
// response and no further progress for it arrive, and that the server goes on
// serving.
func checkCancel(t *testing.T, c canceller, outputs map[string]*jsonschema.Resolved, marker string) {
	for i := range 30 {
		var n note
		callOK(t, c, outputs, "add_note", map[string]any{"text": fmt.Sprintf("filler note %d %s", i, marker)}, &n)
	}
	token := "cancel-" + marker
	started, cancelledAt, err := c.CallToolCancelled(t, "reindex", map[string]any{}, token)
	if err == nil {
		t.Errorf("the cancelled call returned no error")
	}
	events := c.Wire(token)
	if len(events) == 0 || events[0].Response {
		t.Fatalf("the call's first message was not progress: %v", events)
	}
	// Wait well past the time the whole reindex would take at the pace of
	// its first note, so that a server that did not stop would be caught.
	first := events[0]
	wait := time.Second
	full := time.Duration(0) // how long the whole reindex would take
	if first.Total != nil {
		full = time.Duration(*first.Total * float64(first.At.Sub(started)))
		wait += full * 3 / 2
	}
	until := time.Now().Add(wait)
	// Over HTTP a 2026-07-28 client cancels by closing the call's stream, so
	// nothing more about the call can reach it: the server's log is the
	// witness that the tool saw its context end, and when.
	if srv := serverOf(c); srv != nil {
		at, ok := srv.toolStopped("Reindex", wait)
		switch {
		case !ok:
			t.Errorf("the server never logged the reindex ending with a cancelled context")
		case full > 0 && at.Sub(started) >= full:
			t.Errorf("the reindex stopped %v after it started, no sooner than it would have finished (%v)", at.Sub(started), full)
		}
	}
	// This wait stays: it is the observation window for something that must
	// not happen; a shorter one can only let a bad server pass, never fail
	// a good one.
	time.Sleep(time.Until(until))
	const grace = 100 * time.Millisecond // messages the server wrote before it read the cancellation
	events = c.Wire(token)
	for _, e := range events {
		if e.Response {
			t.Errorf("a response arrived for the cancelled call (%v after the cancellation): %v",
				e.At.Sub(cancelledAt), events)
		} else if e.At.Sub(cancelledAt) > grace {
			t.Errorf("progress %v arrived %v after the cancellation: %v", e.Progress, e.At.Sub(cancelledAt), events)
		}
	}
	var found struct {
		Result []note `json:"result"`
	}
	callOK(t, c, outputs, "search_notes", map[string]any{"query": "filler note 29 " + marker}, &found)
	if len(found.Result) != 1 {
		t.Errorf("after the cancellation, search_notes found %d notes, want 1", len(found.Result))
	}
}

// serverOf returns the HTTP server process behind a session, nil over stdio.
func serverOf(s session) *httpServer {
	if h, ok := s.(interface{ server() *httpServer }); ok {
		return h.server()
	}
	return nil
}
