package mcphttp

// Resuming an event stream with Last-Event-ID: from this replica's live
// stream, or from the stored events.

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// resume serves a GET with Last-Event-ID: the events of that stream stored
// after it, then, if the stream is still going, the stream itself.
func (s *session) resume(w http.ResponseWriter, r *http.Request, lastID string) {
	var events []storedEvent
	collect := func(id string, msg []byte) error {
		events = append(events, storedEvent{id, msg})
		return nil
	}
	ctx := context.WithoutCancel(r.Context())
	name, err := s.h.store.Replay(ctx, s.id, lastID, collect)
	if err != nil {
		if errors.Is(err, ErrUnknownEvent) {
			writeError(w, http.StatusBadRequest, nil, runtime.CodeInvalidRequest,
				"Bad Request: unknown Last-Event-ID "+strconv.Quote(lastID)+"; the stream cannot be resumed")
			return
		}
		s.h.logger.Warn("mcphttp: replay events", "session", s.id, "err", err)
		writeError(w, http.StatusInternalServerError, nil, runtime.CodeInternalError, "Internal Server Error: cannot replay the stream")
		return
	}
	st := s.findStream(name)
	if st == nil {
		cn := newConn(w)
		// The stream has ended: everything it had to say is stored. With
		// nothing left (the client had it all, or the call was cancelled and
		// will never answer), 204 No Content is the event stream's way to
		// say "do not reconnect" (WHATWG HTML, server-sent events): an empty
		// stream instead would be resumed again, and a client that resumes
		// without an event id opens a second standalone stream.
		if len(events) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		cn.open()
		cn.write(appendEvents(s.h.opts.RetryInterval, events))
		return
	}
	s.resumeLocal(w, r, st, lastID, events)
}

// resumeLocal resumes st, a stream of this process, from lastID: events
// are what a replay from it gave so far.
func (s *session) resumeLocal(w http.ResponseWriter, r *http.Request, st *stream, lastID string, events []storedEvent) {
	ctx := context.WithoutCancel(r.Context())
	collect := func(id string, msg []byte) error {
		events = append(events, storedEvent{id, msg})
		return nil
	}
	cn := newConn(w)
	st.mu.Lock()
	// Events stored since the replay above: none can be added while st.mu
	// is held.
	from := lastID
	if len(events) > 0 {
		from = events[len(events)-1].id
	}
	if _, err := s.h.store.Replay(ctx, s.id, from, collect); err != nil {
		s.h.logger.Warn("mcphttp: replay events", "session", s.id, "err", err)
	}
	cn.open()
	if !cn.write(appendEvents(s.h.opts.RetryInterval, events)) || st.final {
		st.mu.Unlock()
		return
	}
	st.detach(releaseTaken)
	st.conn = cn
	if len(events) > 0 {
		st.sent = events[len(events)-1].id
	}
	st.keepAlive(cn)
	st.mu.Unlock()
	s.serveStream(r, st, cn)
}

type storedEvent struct {
	id  string
	msg []byte
}

// appendEvents encodes the retry interval and the events of a replay.
func appendEvents(retry time.Duration, events []storedEvent) []byte {
	// The retry field alone, in a block that dispatches no event.
	b := append(make([]byte, 0, 256), "retry: "...)
	b = strconv.AppendInt(b, int64((retry+time.Millisecond-1)/time.Millisecond), 10)
	b = append(b, "\n\n"...)
	for _, e := range events {
		b = appendEvent(b, e.id, e.msg)
	}
	return b
}
