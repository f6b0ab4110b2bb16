package mcphttp

import "context"

// Shutdown shuts the handler down gracefully: new requests get 503, the
// 2026-07-28 subscriptions/listen streams end with their complete result
// (Server.EndSubscriptions, which ends those of every handler of the
// server), the standalone and HTTP+SSE streams end, calls in flight are
// waited for until ctx ends (and are then cancelled), and every session
// ends. It returns ctx.Err() when it had to cancel calls.
//
// http.Server.Shutdown does not end long-lived streams, nor wait for calls
// that outlive their HTTP request (a legacy call whose client disconnected),
// so call both (and PromptShutdown(srv) before srv serves, so that a
// connection a client dialled and never used does not hold srv.Shutdown):
//
//	go srv.Shutdown(ctx)
//	h.Shutdown(ctx)
func (h *Handler) Shutdown(ctx context.Context) error {
	if old := h.state.Or(closingBit); old&^closingBit == 0 {
		h.signalDrained()
	}
	h.noteChange()
	// subscriptions/listen calls run until the client leaves: ended now, each
	// with its complete result, they do not hold the drain below.
	h.srv.EndSubscriptions()
	for _, s := range h.liveSessions() {
		s.endStandalone()
	}
	if h.rep != nil {
		h.rep.stopFollowers("", "", "")
	}
	if h.legacy != nil {
		h.legacy.shutdown(ctx)
	}
	var err error
	select {
	case <-h.drained:
	default:
		select {
		case <-h.drained:
		case <-ctx.Done():
			err = ctx.Err()
			h.inflight.cancelAll()
			for _, s := range h.liveSessions() {
				s.cancelCalls()
			}
		}
	}
	for _, s := range h.liveSessions() {
		s.end()
	}
	if h.rep != nil {
		h.rep.close()
	}
	h.work.stop()
	return err
}

// Close shuts the handler down at once: Shutdown with a context that has
// already ended, so calls in flight are cancelled.
func (h *Handler) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.Shutdown(ctx)
	return nil
}

// SessionCount returns the number of live legacy sessions, of both legacy
// transports.
func (h *Handler) SessionCount() int {
	h.mu.RLock()
	n := len(h.sessions)
	h.mu.RUnlock()
	if h.legacy != nil {
		n += h.legacy.count()
	}
	return n
}

func (h *Handler) liveSessions() []*session {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		out = append(out, s)
	}
	return out
}

// reserveSession takes one of the MaxSessions slots for a new legacy
// session; false when they are all taken or the handler is shutting down.
func (h *Handler) reserveSession() bool {
	for {
		n := h.nsessions.Load()
		if n >= int64(h.opts.MaxSessions) || h.closing() {
			return false
		}
		if h.nsessions.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// releaseSession gives back a slot reserveSession took.
func (h *Handler) releaseSession() {
	h.nsessions.Add(-1)
	h.noteChange()
}

// closing reports whether Shutdown has begun.
func (h *Handler) closing() bool { return h.state.Load()&closingBit != 0 }

// track counts a call in flight, so Shutdown waits for it; done ends it. ok
// is false when the handler is shutting down.
func (h *Handler) track() (done func(), ok bool) {
	if !h.enter() {
		return nil, false
	}
	return h.exitFn, true
}

func (h *Handler) enter() bool {
	if h.state.Add(1)&closingBit != 0 {
		h.exit()
		return false
	}
	return true
}

func (h *Handler) exit() {
	if h.state.Add(-1) == closingBit {
		h.signalDrained()
	}
	h.noteChange()
}

func (h *Handler) signalDrained() { h.drainOnce.Do(func() { close(h.drained) }) }
