package mcphttp

import (
	"context"
	"net/http"

	"github.com/rpcgen/rpcgen/runtime"
)

// A legacy session's standalone stream (GET with Mcp-Session-Id): the
// messages not related to any request, which the mcpserver.Session sends through
// its outbound (resources/updated, list_changed). They are stored as the
// stream's events whether or not a connection is open, so a GET opened later
// gets those sent meanwhile (as far as the store keeps them) and a resumed
// one those after its Last-Event-ID.

// maxUnrelatedQueue bounds the messages unrelated to a request waiting for
// the standalone stream of one session (while one write waits for a client
// that stopped reading): more are dropped.
const maxUnrelatedQueue = 4096

// standaloneName names a session's standalone (GET) stream in the store;
// the streams of POSTs are numbered from 1.
const standaloneName = "0"

// endStandalone closes the standalone stream's connection, if open.
func (s *session) endStandalone() {
	s.mu.Lock()
	sa := s.standalone
	s.mu.Unlock()
	if sa != nil {
		sa.mu.Lock()
		sa.detach(releaseEnded)
		sa.mu.Unlock()
	}
}

// serveStandalone serves the session's standalone stream, for messages not
// related to any request; one connection at a time.
func (s *session) serveStandalone(w http.ResponseWriter, r *http.Request) {
	st := s.standaloneStream()
	if st == nil {
		writeError(w, http.StatusNotFound, nil, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
		return
	}
	st.mu.Lock()
	if st.conn != nil {
		st.mu.Unlock()
		writeError(w, http.StatusConflict, nil, runtime.CodeInvalidRequest,
			"Conflict: the session's standalone stream is already open")
		return
	}
	cn := newConn(w)
	st.conn = cn
	cn.open()
	st.catchUp(cn)
	if st.conn == cn {
		st.prime()
	}
	st.keepAlive(cn)
	st.mu.Unlock()
	s.serveStream(r, st, cn)
}

// catchUp writes on cn, the new connection of the standalone stream, the
// events stored since the last one written on a connection: those sent
// while no stream was open (or after the last one broke), as far as the
// store still holds them; st.mu held.
func (st *stream) catchUp(cn *conn) {
	if st.sent == "" {
		return
	}
	s := st.s
	var events []storedEvent
	_, err := s.h.store.Replay(context.Background(), s.id, st.sent, func(id string, msg []byte) error {
		events = append(events, storedEvent{id, msg})
		return nil
	})
	if err != nil {
		// Evicted (the store's bounds) or a failing store: what was sent
		// meanwhile is lost to this stream.
		s.h.logger.Debug("mcphttp: replay a standalone stream's events", "session", s.id, "err", err)
	}
	if len(events) == 0 {
		return
	}
	if !cn.write(appendEvents(s.h.opts.RetryInterval, events)) {
		st.detach(releaseGone)
		return
	}
	st.sent = events[len(events)-1].id
}

// standaloneStream returns the session's standalone stream, making it on
// first use; nil once the session has ended.
func (s *session) standaloneStream() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil
	}
	if s.standalone == nil {
		st := &stream{s: s, name: standaloneName, sse: true}
		// An empty event marks where the stream starts, so that a GET opened
		// later finds what was sent before it (see catchUp).
		id, err := s.h.store.Append(context.Background(), s.id, standaloneName, nil)
		if err != nil {
			s.h.logger.Warn("mcphttp: store an event", "session", s.id, "err", err)
		}
		st.sent = id
		s.standalone = st
	}
	return s.standalone
}

// sendUnrelated sends msg, a message not related to any request, on the
// session's standalone stream: it is stored, and written if the stream is
// open, else delivered when the client opens or resumes the stream. It is
// the session's outbound (mcpserver.SessionControl.SetOutbound), which must not block:
// a goroutine, running only while there are messages to send, puts them on
// the stream in order, so that a client that stopped reading holds none
// but itself.
func (s *session) sendUnrelated(msg []byte) {
	if rep := s.h.rep; rep != nil {
		// Shared: the standalone stream is in the store, whoever holds it.
		ctx, cancel := rep.ctx(context.Background())
		defer cancel()
		if _, err := rep.events.Append(ctx, s.id, standaloneName, msg); err != nil {
			s.h.logger.Warn("mcphttp: store a message for the standalone stream", "session", s.id, "err", err)
		}
		return
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	if len(s.outq) >= maxUnrelatedQueue {
		s.mu.Unlock()
		s.h.logger.Warn("mcphttp: too many messages wait for a standalone stream; dropping one", "session", s.id)
		return
	}
	s.outq = append(s.outq, msg)
	start := !s.draining
	s.draining = true
	s.mu.Unlock()
	if start {
		go s.drainUnrelated()
	}
}

// drainUnrelated puts the messages sendUnrelated queued on the standalone
// stream, until there are none left or the session ends.
func (s *session) drainUnrelated() {
	for {
		s.mu.Lock()
		if len(s.outq) == 0 || s.ended {
			clear(s.outq)
			s.outq, s.draining = s.outq[:0], false
			s.mu.Unlock()
			return
		}
		msg := s.outq[0]
		s.outq[0] = nil
		s.outq = s.outq[1:]
		s.mu.Unlock()
		if st := s.standaloneStream(); st != nil {
			st.mu.Lock()
			st.emit(msg)
			st.mu.Unlock()
		}
	}
}
