package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// A Handler with Options.SessionStore is one replica of a server: its legacy
// Streamable HTTP sessions live in the store, their streams' events in a
// SharedEventStore, and what one replica must tell another goes on the bus.
// A replica keeps a copy of each session it served lately (the mcpserver.Session
// rebuilt from the stored state), checked against the store at every
// request, and the calls and streams it runs. The bus carries:
//
//   - on ctlTopic, to every replica: the end of a session, a client's
//     notifications/cancelled (the replica running the call cancels it), and
//     a stream taken over by a connection elsewhere;
//   - on the topic of one replica: the client's answer to a request that
//     replica sent (its id names the replica), and the probes of a replica
//     following a stream another one writes, and their replies.
//
// Messages unrelated to a request are stored as events of the session's
// standalone stream, by the replica where they happen, for every session
// they concern (SessionStore.Match), before that replica answers the call
// that made them (fanout.go); the replica holding the session's GET stream
// follows the store and writes them.
type replica struct {
	h        *Handler
	id       string // names this replica in stream names and request ids
	sessions SessionStore
	events   SharedEventStore
	bus      mcpserver.Bus
	timeout  time.Duration
	seq      atomic.Int64 // stream names

	mu        sync.Mutex
	followers map[string]map[*follower]struct{} // by session id
	probes    map[string]map[chan struct{}]struct{}
	stops     []func()

	fan      chan seqChange // the changes to store for their sessions, in order (fanout.go)
	fanStart sync.Once
	fanMu    sync.Mutex   // orders the sends on fan with their numbers
	queued   atomic.Int64 // the number of the last change sent on fan
	stored   atomic.Int64 // the number of the last change fanOut is done with
	storedMu sync.Mutex
	storedCh chan struct{} // closed when stored moves on
}

const ctlTopic = "mcphttp/ctl"

func replicaTopic(id string) string { return "mcphttp/replica/" + id }

// busMsg is a message between replicas.
type busMsg struct {
	T      string          `json:"t"`            // ended, cancel, taken, answer, probe, alive
	S      string          `json:"s"`            // the session
	Stream string          `json:"st,omitempty"` // taken, probe, alive
	By     string          `json:"by,omitempty"` // taken: the taker; probe: the replica to answer
	OK     bool            `json:"ok,omitempty"` // alive: the stream still runs
	M      json.RawMessage `json:"m,omitempty"`  // cancel, answer: the client's message
}

func newReplica(h *Handler) *replica {
	rep := &replica{h: h, sessions: h.opts.SessionStore, timeout: h.opts.StoreTimeout,
		followers: make(map[string]map[*follower]struct{}), probes: make(map[string]map[chan struct{}]struct{}),
		fan: make(chan seqChange, 1024), storedCh: make(chan struct{})}
	es, ok := h.opts.EventStore.(SharedEventStore)
	if !ok {
		panic("mcphttp: Options.SessionStore needs an EventStore that is a SharedEventStore (one the replicas share)")
	}
	rep.events = es
	rep.bus = h.opts.Bus
	if rep.bus == nil {
		rep.bus = h.srv.Bus()
	}
	if rep.bus == nil {
		panic("mcphttp: Options.SessionStore needs a Bus (Options.Bus or mcpserver.Options.Bus)")
	}
	var id [5]byte
	_, _ = rand.Read(id[:])
	rep.id = strings.ToLower(strconv.FormatUint(uint64(id[0])<<32|uint64(id[1])<<24|uint64(id[2])<<16|uint64(id[3])<<8|uint64(id[4]), 36))
	for _, sub := range []struct {
		topic string
		f     func([]byte)
	}{{ctlTopic, rep.onCtl}, {replicaTopic(rep.id), rep.onDirect}} {
		stop, err := rep.bus.Subscribe(sub.topic, sub.f)
		if err != nil {
			h.logger.Error("mcphttp: subscribe to the bus", "topic", sub.topic, "err", err)
			continue
		}
		rep.stops = append(rep.stops, stop)
	}
	h.srv.OnChange(rep.onChange)
	return rep
}

// ctx bounds a call of the store or the bus made for a request.
func (rep *replica) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(parent), rep.timeout)
}

func (rep *replica) publish(topic string, m *busMsg) {
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	ctx, cancel := rep.ctx(context.Background())
	defer cancel()
	if err := rep.bus.Publish(ctx, topic, b); err != nil {
		rep.h.logger.Warn("mcphttp: publish to the other replicas", "type", m.T, "session", m.S, "err", err)
	}
}

// errUnavailable is the error of a request whose session the store could
// not tell.
var errUnavailable = &runtime.Error{Code: runtime.CodeServerError, Message: unavailableMessage}

const unavailableMessage = "Service Unavailable: the session store does not answer; try again"

func writeUnavailable(w http.ResponseWriter, body, id []byte) {
	writeBodyError(w, http.StatusServiceUnavailable, body, id, runtime.CodeServerError, unavailableMessage)
}

// find returns the session sid that r may use, nil when there is none; an
// error when the store does not answer.
func (rep *replica) find(r *http.Request, sid string) (*session, error) {
	h := rep.h
	ctx, cancel := rep.ctx(r.Context())
	defer cancel()
	if s := h.session(sid); s != nil {
		if s.subject != tokenSubject(r) {
			return nil, nil
		}
		level, err := rep.sessions.Touch(ctx, sid, h.opts.SessionIdleTimeout)
		if errors.Is(err, ErrSessionNotFound) {
			s.end() // it ended elsewhere, or expired
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		s.ss.SetLogLevel(level)
		return s, nil
	}
	st, err := rep.sessions.Get(ctx, sid, h.opts.SessionIdleTimeout)
	if errors.Is(err, ErrSessionNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st.Subject != tokenSubject(r) {
		return nil, nil
	}
	_, ctl, err := h.srv.RestoreSession(st.State)
	if err != nil {
		h.logger.Warn("mcphttp: a stored session cannot be restored", "session", sid, "err", err)
		return nil, nil
	}
	return rep.adopt(st, ctl), nil
}

// adopt makes the session ctl controls, which st describes, one this
// replica serves, and
// returns it (or the copy another request made meanwhile).
func (rep *replica) adopt(st *StoredSession, ctl mcpserver.SessionControl) *session {
	ss := ctl.Session()
	h := rep.h
	s := &session{h: h, id: st.ID, subject: st.Subject, ss: ss, polling: st.State.ProtocolVersion >= mcp.Version20251125}
	s.last.Store(time.Now().UnixNano())
	ctl.SetStateHook(s.persist)
	ctl.SetRequestIDPrefix(rep.id + ".")
	ctl.SetID(st.ID)
	h.mu.Lock()
	if old := h.sessions[st.ID]; old != nil {
		h.mu.Unlock()
		ss.Close()
		return old
	}
	h.sessions[st.ID] = s
	if !h.sweeping {
		h.sweeping = true
		go h.sweep()
	}
	h.mu.Unlock()
	return s
}

// persist stores a change the client made to the session's state.
func (s *session) persist(ctx context.Context, c mcpserver.StateChange) error {
	rep := s.h.rep
	ctx, cancel := rep.ctx(ctx)
	defer cancel()
	err := rep.sessions.Update(ctx, s.id, SessionUpdate{LogLevel: c.LogLevel, Subscribe: c.Subscribe, Unsubscribe: c.Unsubscribe})
	if errors.Is(err, ErrSessionNotFound) {
		return &runtime.Error{Code: runtime.CodeInvalidRequest, Message: "the session has ended"}
	}
	if err != nil {
		rep.h.logger.Warn("mcphttp: store a session's change", "session", s.id, "err", err)
		return errUnavailable
	}
	return nil
}

// create stores the session ss that an initialize just started, and
// adopts it; ErrTooManySessions when the limit is reached.
func (rep *replica) create(r *http.Request, body []byte, ctl mcpserver.SessionControl) (*session, error) {
	st, _ := ctl.Session().State()
	stored := &StoredSession{ID: newSessionID(), Subject: tokenSubject(r), State: st,
		ClientInfo: clientInfo(body), Created: time.Now().UTC()}
	ctx, cancel := rep.ctx(r.Context())
	defer cancel()
	idle := rep.h.opts.SessionIdleTimeout
	if err := rep.sessions.Create(ctx, stored, rep.h.opts.MaxSessions, idle); err != nil {
		return nil, err
	}
	// The standalone stream starts with an empty event, so that a GET
	// opened later gets what was sent before it.
	mark, err := rep.events.Append(ctx, stored.ID, standaloneName, nil)
	if err == nil {
		stored.Standalone = mark
		err = rep.sessions.Update(ctx, stored.ID, SessionUpdate{Standalone: mark})
	}
	if err != nil {
		_, _ = rep.sessions.Delete(ctx, stored.ID)
		return nil, err
	}
	return rep.adopt(stored, ctl), nil
}

// clientInfo returns the params.clientInfo of an initialize body.
func clientInfo(body []byte) json.RawMessage {
	var m struct {
		Params struct {
			ClientInfo json.RawMessage `json:"clientInfo"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	return m.Params.ClientInfo
}

// deleteSession serves a DELETE of the session s: it ends it in the store,
// then everywhere.
func (rep *replica) deleteSession(w http.ResponseWriter, r *http.Request, s *session) {
	ctx, cancel := rep.ctx(r.Context())
	defer cancel()
	live, err := rep.sessions.Delete(ctx, s.id)
	if err != nil {
		writeUnavailable(w, nil, nil)
		return
	}
	if err := rep.events.DeleteSession(ctx, s.id); err != nil {
		rep.h.logger.Warn("mcphttp: delete a session's events", "session", s.id, "err", err)
	}
	rep.publish(ctlTopic, &busMsg{T: "ended", S: s.id})
	s.end()
	if !live {
		writeError(w, http.StatusNotFound, nil, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// route serves a notification or response POSTed to the shared session s;
// false when the session handles it itself.
func (rep *replica) route(w http.ResponseWriter, r *http.Request, s *session, body []byte, env *envelope) bool {
	switch {
	case env.IsResponse() && env.ID != nil:
		owner := rep.id
		if id := string(env.ID); len(id) > 2 && id[0] == '"' {
			if i := strings.IndexByte(id, '.'); i > 1 {
				owner = id[1:i]
			}
		}
		ctx, cancel := rep.ctx(r.Context())
		first, err := rep.sessions.Claim(ctx, s.id, string(env.ID), rep.h.opts.SessionIdleTimeout)
		cancel()
		if err != nil {
			writeUnavailable(w, body, nil)
			return true
		}
		if first {
			if owner == rep.id {
				s.ss.Handle(r.Context(), body, nil)
			} else {
				rep.publish(replicaTopic(owner), &busMsg{T: "answer", S: s.id, M: body})
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return true
	case env.ID == nil && env.MethodIs(mcp.NotificationCancelled):
		rep.publish(ctlTopic, &busMsg{T: "cancel", S: s.id, M: body})
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	return false
}
