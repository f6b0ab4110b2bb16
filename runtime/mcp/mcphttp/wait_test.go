package mcphttp

import (
	"testing"
	"time"
)

// standaloneFree reports whether no connection holds the standalone stream
// of session sid.
func standaloneFree(h *Handler, sid string) bool {
	s := h.session(sid)
	if s == nil {
		return false
	}
	s.mu.Lock()
	st := s.standalone
	s.mu.Unlock()
	if st == nil {
		return true
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.conn == nil
}

// eventually waits until cond holds, looking again each time h notes a
// change (Handler.testChanged: a call, stream or session ended, or shutdown
// began), failing after 10s.
func eventually(t *testing.T, h *Handler, what string, cond func() bool) {
	t.Helper()
	changed := make(chan struct{}, 1)
	wake := func() {
		select {
		case changed <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	if !h.testChanged.CompareAndSwap(nil, &wake) {
		t.Fatalf("waiting until %s: another wait on the handler is under way", what)
	}
	defer h.testChanged.Store(nil)
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for !cond() {
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}
