package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// A legacy Streamable HTTP session (2025-03-26 to 2025-11-25). initialize
// creates it and names it in Mcp-Session-Id; every later request carries the
// id. A POSTed request runs for as long as it takes (on the POST's goroutine
// on HTTP/1.x; see call), whatever becomes of the HTTP request: the protocol
// says a disconnect is not a cancellation (the client cancels with
// notifications/cancelled), and the client may resume the response stream
// with GET and Last-Event-ID.
//
// MCP-Protocol-Version on a session's requests: absent means the negotiated
// revision (the spec's "assume 2025-03-26" applies only when nothing else
// tells the version, and initialize does); present, it must be a legacy
// revision this server speaks, and an unknown value gets 400. A known
// revision other than the negotiated one is accepted, as clients are known
// to send their own newest revision.
//
// An idle session (no request in flight and no open stream) costs no
// goroutine and no timer: one janitor goroutine per Handler, running while
// there are sessions, ends those idle for too long.
type session struct {
	h       *Handler
	id      string
	subject string // the token subject that created it; "" without Auth
	ss      *mcpserver.Session
	// last is when it was last seen idle, in Unix nanoseconds: when it
	// started, or the janitor's first sweep after it became idle again
	// (idled says it did), so that a call costs no clock read.
	last atomic.Int64

	// polling: the revision (2025-11-25 and later) has priming events and
	// lets the server close a stream's connection for the client to poll;
	// older clients may not expect an event with empty data. Set once,
	// before the session is shared; beside ended to keep the struct small.
	polling bool
	ended   bool // guarded by mu
	idled   bool // it became idle since the last sweep; guarded by mu

	mu         sync.Mutex
	active     int32   // calls in flight and open standalone streams
	nstreams   int32   // streams named so far
	calls      []*call // calls in flight
	standalone *stream // the GET stream, once there is one
	// outq holds the messages unrelated to a request not yet put on the
	// standalone stream; draining tells a goroutine is putting them there.
	outq     [][]byte
	draining bool
	// life is the parent of its calls' contexts (callContext), made with the
	// first call; endLife, called when the session ends, cancels them.
	life    context.Context
	endLife context.CancelFunc
}

// initialize starts a session with an initialize request. The session
// exists, and gets its id, only if initialize succeeds.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	if h.rep != nil {
		h.initializeShared(w, r, body, env)
		return
	}
	if !h.reserveSession() {
		writeBodyError(w, http.StatusServiceUnavailable, body, env.ID, runtime.CodeServerError,
			"Service Unavailable: too many sessions, or the server is shutting down")
		return
	}
	ss, ctl := h.srv.NewTransportSession()
	reply := ss.Handle(r.Context(), body, nil)
	if _, failed := httpwire.ReplyError(reply); failed || len(reply) == 0 {
		h.releaseSession()
		if len(reply) == 0 {
			writeError(w, http.StatusBadRequest, env.ID, runtime.CodeInvalidRequest, "Bad Request: initialize was not answered")
			return
		}
		writeJSON(w, legacyStatus(reply), reply)
		return
	}
	s := &session{h: h, id: newSessionID(), subject: tokenSubject(r), ss: ss, polling: ss.ProtocolVersion() >= mcp.Version20251125}
	ctl.SetID(s.id)
	s.last.Store(time.Now().UnixNano())
	// Messages unrelated to a request (resources/updated, list_changed) go
	// on the standalone stream, or wait in the store for it.
	ctl.SetOutbound(s.sendUnrelated)
	h.mu.Lock()
	if h.closing() {
		h.mu.Unlock()
		h.releaseSession()
		writeError(w, http.StatusServiceUnavailable, env.ID, runtime.CodeServerError, "Service Unavailable: the server is shutting down")
		return
	}
	h.sessions[s.id] = s
	if !h.sweeping {
		h.sweeping = true
		go h.sweep()
	}
	h.mu.Unlock()
	h.answerInitialize(w, s, reply)
}

// initializeShared is initialize for a replica: the session is created in
// the store, within the limit of all replicas' sessions.
func (h *Handler) initializeShared(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	if h.closing() {
		writeBodyError(w, http.StatusServiceUnavailable, body, env.ID, runtime.CodeServerError, "Service Unavailable: the server is shutting down")
		return
	}
	ss, ctl := h.srv.NewTransportSession()
	reply := ss.Handle(r.Context(), body, nil)
	if _, failed := httpwire.ReplyError(reply); failed || len(reply) == 0 {
		if len(reply) == 0 {
			writeError(w, http.StatusBadRequest, env.ID, runtime.CodeInvalidRequest, "Bad Request: initialize was not answered")
			return
		}
		writeJSON(w, legacyStatus(reply), reply)
		return
	}
	s, err := h.rep.create(r, body, ctl)
	switch {
	case errors.Is(err, ErrTooManySessions):
		writeBodyError(w, http.StatusServiceUnavailable, body, env.ID, runtime.CodeServerError,
			"Service Unavailable: too many sessions, or the server is shutting down")
		return
	case err != nil:
		h.logger.Warn("mcphttp: store a new session", "err", err)
		writeUnavailable(w, body, env.ID)
		return
	}
	h.answerInitialize(w, s, reply)
}

// answerInitialize answers the initialize that started s.
func (h *Handler) answerInitialize(w http.ResponseWriter, s *session, reply []byte) {
	h.logger.Debug("mcphttp: session started", "session", s.id, "version", s.ss.ProtocolVersion())
	w.Header()[httpwire.HdrSessionID] = []string{s.id}
	if h.opts.SSE {
		c := newConn(w)
		c.open()
		c.writeEvent("", reply)
		return
	}
	writeJSON(w, http.StatusOK, reply)
}

// sweep ends the sessions idle for longer than SessionIdleTimeout, checking
// a few times per timeout; it returns when there are no sessions left. A
// session that became idle since the last sweep is idle from this sweep on:
// it is ended at most a timeout and two sweeps' interval after its last
// call or stream ended, never before a timeout.
func (h *Handler) sweep() {
	idle := h.opts.SessionIdleTimeout
	t := time.NewTicker(min(max(idle/4, time.Millisecond), time.Minute))
	defer t.Stop()
	var expired []*session
	for {
		select {
		case <-t.C:
		case <-h.sweepWake:
		}
		now := time.Now().UnixNano()
		h.mu.Lock()
		if len(h.sessions) == 0 {
			h.sweeping = false
			h.mu.Unlock()
			return
		}
		var busy []*session
		for _, s := range h.sessions {
			s.mu.Lock()
			if s.idled {
				s.idled = false
				if s.active == 0 {
					// Read under s.mu, after the call or stream that ended.
					s.last.Store(time.Now().UnixNano())
				}
			}
			if !s.ended && s.active == 0 && time.Duration(now-s.last.Load()) >= idle {
				expired = append(expired, s)
			} else if s.active > 0 && h.rep != nil {
				busy = append(busy, s)
			}
			s.mu.Unlock()
		}
		h.mu.Unlock()
		// A replica keeps the sessions it is busy with alive in the store,
		// and lets its copies of idle ones go (the store keeps them).
		for _, s := range busy {
			if !h.rep.keepAlive(s) {
				expired = append(expired, s)
			}
		}
		for i, s := range expired {
			h.logger.Debug("mcphttp: session expired", "session", s.id)
			s.end()
			expired[i] = nil
		}
		expired = expired[:0]
	}
}

// activate counts a call or stream in; s.mu must be held.
func (s *session) activate() { s.active++ }

// deactivate counts it out; s.mu must be held.
func (s *session) deactivate() {
	s.active--
	if s.active == 0 {
		s.idled = true // the janitor reads the time (sweep)
	}
}

// end ends the session: its calls are cancelled, its streams closed, its
// events forgotten, and its id answers 404 from now on.
func (s *session) end() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	calls, sa, endLife := s.calls, s.standalone, s.endLife
	s.calls, s.standalone = nil, nil
	s.mu.Unlock()

	h := s.h
	h.mu.Lock()
	delete(h.sessions, s.id)
	if len(h.sessions) == 0 {
		select {
		case h.sweepWake <- struct{}{}: // the janitor may stop
		default:
		}
	}
	h.mu.Unlock()
	if h.rep == nil {
		h.releaseSession()
	}
	for _, c := range calls {
		c.mu.Lock()
		c.detach(releaseEnded)
		c.mu.Unlock()
	}
	if endLife != nil {
		endLife() // the calls are cancelled
	}
	// Its subscriptions end, and the requests it sent the client fail.
	s.ss.Close()
	if sa != nil {
		sa.mu.Lock()
		sa.detach(releaseEnded)
		sa.mu.Unlock()
	}
	if h.rep != nil {
		// A replica's copy of a shared session: the session goes on in the
		// store (a DELETE ended it there first).
		h.rep.stopFollowers(s.id, "", "")
	} else if err := h.store.DeleteSession(context.Background(), s.id); err != nil {
		h.logger.Warn("mcphttp: delete a session's events", "session", s.id, "err", err)
	}
	h.logger.Debug("mcphttp: session ended", "session", s.id)
	h.noteChange()
}

// cancelCalls cancels the calls in flight, for a shutdown that ends the
// session next: any later call's context is cancelled too.
func (s *session) cancelCalls() {
	s.mu.Lock()
	if s.life == nil {
		s.life, s.endLife = context.WithCancel(context.Background())
	}
	endLife := s.endLife
	s.mu.Unlock()
	endLife()
}

// append stores msg as the next event of the stream named name and returns
// its id; false once the session has ended (its events are gone) or when the
// store fails.
func (s *session) append(name string, msg []byte) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return "", false
	}
	id, err := s.h.store.Append(context.Background(), s.id, name, msg)
	if err != nil {
		s.h.logger.Warn("mcphttp: store an event", "session", s.id, "err", err)
		return "", false
	}
	return id, true
}

// appendSeq is append for a handler whose store is a MemoryEventStore
// (h.mem): the event's id is eventID(name, seq), made only where needed.
func (s *session) appendSeq(name string, msg []byte) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return 0, false
	}
	seq, err := s.h.mem.appendSeq(s.id, name, msg)
	if err != nil {
		s.h.logger.Warn("mcphttp: store an event", "session", s.id, "err", err)
		return 0, false
	}
	return seq, true
}

// nameStream names a new POST stream; st.mu held, s.mu not.
func (s *session) nameStream(st *stream) {
	if s.h.rep != nil {
		st.name = s.h.rep.streamName()
		return
	}
	s.mu.Lock()
	s.nstreams++
	st.name = strconv.Itoa(int(s.nstreams))
	s.mu.Unlock()
}
