package mcphttp

import (
	"sync/atomic"
	"time"
)

// The output an HTTP+SSE session buffers for its stream is bounded, per
// session and across the process, so that a client that never reads its
// stream costs bounded memory and loses no answer without being told:
//
//   - A POSTed request is refused (429, or 503 when the whole process is
//     over its bound; a JSON-RPC error body either way) while the session's
//     buffered output is over legacyMaxPending, or the process's over
//     legacyOutput.soft. A request accepted with 202 is answered on the
//     stream, or its session ends.
//   - A message that would take the session over legacyMaxBuffered, or the
//     process over legacyOutput.hard (the answers of calls accepted before
//     the stream filled, or one huge answer), condemns the session: it is
//     removed at once (its id gets 404), its calls are cancelled, its stream
//     is cut without draining, and its buffers are let go. The client sees
//     its stream end, not a silence.
//
// Buffered output counts the messages queued and those being written,
// until the write returns.

const (
	// legacyMaxPending is the buffered output beyond which a session takes
	// no new request.
	legacyMaxPending = 4 << 20
	// legacyMaxBuffered is the buffered output that condemns a session.
	legacyMaxBuffered = 16 << 20
)

// outputBudget bounds the output buffered by every HTTP+SSE session of the
// process.
type outputBudget struct {
	used       atomic.Int64
	soft, hard int64
}

// legacyOutput is the process's budget: 64 MiB of buffered output before
// requests are refused, 128 MiB before a session is condemned.
var legacyOutput = &outputBudget{soft: 64 << 20, hard: 128 << 20}

// buffered returns the output buffered by l's sessions.
func (l *sseLegacy) buffered() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for _, sess := range l.sessions {
		sess.mu.Lock()
		n += int64(sess.buffered)
		sess.mu.Unlock()
	}
	return n
}

// admit reports the status refusing a new request to sess because its
// stream or the process's streams are full, or 0.
func (sess *sseSession) admit() int {
	sess.mu.Lock()
	full := sess.buffered >= legacyMaxPending
	sess.mu.Unlock()
	switch {
	case full:
		return 429
	case legacyOutput.used.Load() >= legacyOutput.soft:
		return 503
	}
	return 0
}

// send queues msg for the stream; called by the session's handlers (in
// order, for the messages of one call) and never blocks on the network.
func (sess *sseSession) send(msg []byte) {
	sess.mu.Lock()
	if sess.ended {
		sess.mu.Unlock()
		return
	}
	n := int64(len(msg))
	over := sess.buffered+len(msg) > legacyMaxBuffered
	if !over && legacyOutput.used.Add(n) > legacyOutput.hard {
		legacyOutput.used.Add(-n)
		over = true
	}
	if over {
		buffered := sess.buffered
		sess.mu.Unlock()
		sess.logger.Warn("mcphttp: HTTP+SSE client does not read its stream; ending its session",
			"session", sess.id, "buffered", buffered, "process", legacyOutput.used.Load())
		sess.l.condemn(sess)
		return
	}
	sess.queue = append(sess.queue, msg)
	sess.buffered += len(msg)
	sess.mu.Unlock()
	select {
	case sess.wake <- struct{}{}:
	default:
	}
}

// take moves the queued messages to batch and returns their size, which
// stays counted as buffered until written reports it.
func (sess *sseSession) take(batch [][]byte) ([][]byte, int) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	n := 0
	for _, m := range sess.queue {
		n += len(m)
	}
	batch = append(batch, sess.queue...)
	clear(sess.queue)
	sess.queue = sess.queue[:0]
	return batch, n
}

// written releases n bytes of output taken for the stream, written or not.
func (sess *sseSession) written(n int) {
	sess.mu.Lock()
	sess.buffered -= n
	sess.mu.Unlock()
	legacyOutput.used.Add(-int64(n))
	sess.l.h.noteChange()
}

func (sess *sseSession) isCondemned() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.condemned
}

// streamEnded marks the stream's connection as no longer sess's: its write
// deadline is cleared for the connection's next request, unless the
// session was condemned, which cut the connection.
func (sess *sseSession) streamEnded() {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.done = true
	if !sess.condemned {
		_ = sess.rc.SetWriteDeadline(time.Time{})
	}
}

// condemn ends sess for good: removed at once, its stream cut (a write
// blocked on a client that does not read fails now), its queue let go.
func (l *sseLegacy) condemn(sess *sseSession) {
	sess.mu.Lock()
	if sess.condemned {
		sess.mu.Unlock()
		return
	}
	sess.condemned = true
	if !sess.done {
		_ = sess.rc.SetWriteDeadline(time.Now())
	}
	sess.mu.Unlock()
	l.end(sess)
}

// end removes the session and ends it: its calls in flight are cancelled
// and nothing more is queued for it.
func (l *sseLegacy) end(sess *sseSession) {
	l.mu.Lock()
	_, live := l.sessions[sess.id]
	delete(l.sessions, sess.id)
	l.mu.Unlock()
	sess.cancel()
	sess.mu.Lock()
	sess.ended = true
	n := 0
	for _, m := range sess.queue {
		n += len(m)
	}
	clear(sess.queue)
	sess.queue = nil
	sess.buffered -= n
	sess.mu.Unlock()
	legacyOutput.used.Add(-int64(n))
	if !live {
		sess.l.h.noteChange()
		return
	}
	// Its subscriptions end, and the requests it sent the client fail.
	sess.ss.Close()
	sess.logger.Debug("mcphttp: HTTP+SSE session ended", "session", sess.id)
	sess.l.h.noteChange()
}
