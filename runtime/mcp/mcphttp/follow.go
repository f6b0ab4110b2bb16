package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// A follower writes, on a connection of this replica, a stream of a shared
// session that another replica writes to the store (a resumed POST stream
// whose call runs elsewhere), or that every replica writes to (the
// standalone stream): it replays the stream from the store whenever the
// store says an event came, and writes what is new. It ends when the
// stream does (its response, or the end marker its writer stored), when a
// connection elsewhere takes the stream over, when the session ends, or
// when the client goes away. A POST stream whose writer no longer answers
// the follower's probes (the replica died) is ended with a marker, so the
// client's next resume gets 204 rather than a stream that never ends.

// endMarker is the event a shared stream that ends without a response (a
// cancelled call, a dead replica) ends with; markers are never sent.
var endMarker = []byte("\x00end")

func isMarker(msg []byte) bool { return len(msg) > 0 && msg[0] == 0 }

type follower struct {
	s      *session
	name   string // the stream
	token  string // names this connection in "taken" messages
	wake   chan struct{}
	stop   chan struct{}
	stopMu sync.Once
}

func (f *follower) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *follower) halt() { f.stopMu.Do(func() { close(f.stop) }) }

func (rep *replica) addFollower(f *follower) {
	rep.mu.Lock()
	if rep.followers[f.s.id] == nil {
		rep.followers[f.s.id] = make(map[*follower]struct{})
	}
	rep.followers[f.s.id][f] = struct{}{}
	rep.mu.Unlock()
}

func (rep *replica) removeFollower(f *follower) {
	rep.mu.Lock()
	delete(rep.followers[f.s.id], f)
	if len(rep.followers[f.s.id]) == 0 {
		delete(rep.followers, f.s.id)
	}
	rep.mu.Unlock()
}

// stopFollowers stops the followers of session sid ("": of every session)
// and stream ("": every stream) but the one whose token is except.
func (rep *replica) stopFollowers(sid, stream, except string) {
	rep.mu.Lock()
	var stop []*follower
	for id, fs := range rep.followers {
		if sid != "" && id != sid {
			continue
		}
		for f := range fs {
			if (stream == "" || f.name == stream) && (except == "" || f.token != except) {
				stop = append(stop, f)
			}
		}
	}
	rep.mu.Unlock()
	for _, f := range stop {
		f.halt()
	}
}

// replay returns the events of the stream from after id.
func (rep *replica) replay(sid, from string) ([]storedEvent, string, error) {
	ctx, cancel := rep.ctx(context.Background())
	defer cancel()
	var events []storedEvent
	name, err := rep.events.Replay(ctx, sid, from, func(id string, msg []byte) error {
		events = append(events, storedEvent{id, msg})
		return nil
	})
	return events, name, err
}

// resume serves a GET with Last-Event-ID in a shared session: the stream
// itself when this replica writes it, else a follower of it.
func (rep *replica) resume(w http.ResponseWriter, r *http.Request, s *session, lastID string) {
	f := &follower{s: s, token: newSessionID(), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	ctx, cancel := rep.ctx(r.Context())
	stopWatch, err := rep.events.Watch(ctx, s.id, f.signal)
	cancel()
	if err != nil {
		writeUnavailable(w, nil, nil)
		return
	}
	defer stopWatch()
	events, name, err := rep.replay(s.id, lastID)
	switch {
	case errors.Is(err, ErrUnknownEvent):
		writeError(w, http.StatusBadRequest, nil, runtime.CodeInvalidRequest,
			"Bad Request: unknown Last-Event-ID "+strconv.Quote(lastID)+"; the stream cannot be resumed")
		return
	case err != nil:
		rep.h.logger.Warn("mcphttp: replay events", "session", s.id, "err", err)
		writeUnavailable(w, nil, nil)
		return
	}
	if st := s.findStream(name); st != nil && name != standaloneName {
		stopWatch()
		rep.publish(ctlTopic, &busMsg{T: "taken", S: s.id, Stream: name, By: f.token})
		s.resumeLocal(w, r, st, lastID, events)
		return
	}
	f.name = name
	rep.follow(w, r, f, lastID, events)
}

// serveStandalone serves the standalone stream of a shared session: the
// events stored since the last GET's last one, then those to come.
func (rep *replica) serveStandalone(w http.ResponseWriter, r *http.Request, s *session) {
	ctx, cancel := rep.ctx(r.Context())
	defer cancel()
	f := &follower{s: s, name: standaloneName, token: newSessionID(), wake: make(chan struct{}, 1), stop: make(chan struct{})}
	stopWatch, err := rep.events.Watch(ctx, s.id, f.signal)
	if err != nil {
		writeUnavailable(w, nil, nil)
		return
	}
	defer stopWatch()
	st, err := rep.sessions.Get(ctx, s.id, rep.h.opts.SessionIdleTimeout)
	if err != nil {
		if errors.Is(err, ErrSessionNotFound) {
			writeError(w, http.StatusNotFound, nil, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
			return
		}
		writeUnavailable(w, nil, nil)
		return
	}
	events, _, err := rep.replay(s.id, st.Standalone)
	if err != nil && !errors.Is(err, ErrUnknownEvent) {
		writeUnavailable(w, nil, nil)
		return
	}
	// One GET stream at a time: the newest takes it over.
	rep.publish(ctlTopic, &busMsg{T: "taken", S: s.id, Stream: standaloneName, By: f.token})
	rep.follow(w, r, f, st.Standalone, events)
}

// follow writes the stream f names on w from the events after from, first
// those given, until it ends (see follower).
func (rep *replica) follow(w http.ResponseWriter, r *http.Request, f *follower, from string, first []storedEvent) {
	s := f.s
	standalone := f.name == standaloneName
	rep.addFollower(f)
	defer rep.removeFollower(f)
	last, done := from, false
	take := func(events []storedEvent) []storedEvent {
		out := events[:0]
		for _, e := range events {
			last = e.id
			if isMarker(e.msg) {
				done = true
				continue
			}
			out = append(out, e)
			if !standalone && isResponse(e.msg) {
				done = true
			}
		}
		return out
	}
	events := take(first)
	remote := !standalone && owner(f.name) != rep.id
	if !standalone && !remote {
		done = true // this replica wrote it and no longer does: it has ended
	}
	if done && len(events) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.mu.Lock()
	s.activate()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.deactivate()
		s.mu.Unlock()
	}()
	cn := newConn(w)
	cn.open()
	b := appendEvents(rep.h.opts.RetryInterval, events)
	if standalone && s.polling && last != "" {
		// A priming event names where the client may resume from.
		b = sse.AppendEvent(b, sse.Event{ID: last, HasID: true})
	}
	if !cn.write(b) {
		return
	}
	if standalone {
		defer func() {
			if last != from {
				ctx, cancel := rep.ctx(context.Background())
				_ = rep.sessions.Update(ctx, s.id, SessionUpdate{Standalone: last})
				cancel()
			}
		}()
	}
	if done {
		return
	}
	var ka <-chan time.Time
	if every := rep.h.opts.KeepAlive; every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		ka = t.C
	}
	var alive chan struct{}
	var probeWait, probeNext <-chan time.Time
	if remote {
		alive = make(chan struct{}, 1)
		key := s.id + "\x00" + f.name
		rep.mu.Lock()
		if rep.probes[key] == nil {
			rep.probes[key] = make(map[chan struct{}]struct{})
		}
		rep.probes[key][alive] = struct{}{}
		rep.mu.Unlock()
		defer func() {
			rep.mu.Lock()
			delete(rep.probes[key], alive)
			if len(rep.probes[key]) == 0 {
				delete(rep.probes, key)
			}
			rep.mu.Unlock()
		}()
		rep.publish(replicaTopic(owner(f.name)), &busMsg{T: "probe", S: s.id, Stream: f.name, By: rep.id})
		probeWait = time.After(rep.timeout)
	}
	for !done {
		select {
		case <-f.wake:
			evs, _, err := rep.replay(s.id, last)
			if errors.Is(err, ErrUnknownEvent) {
				return // evicted under the follower: nothing more can be told apart
			}
			if err != nil {
				continue
			}
			if evs = take(evs); len(evs) > 0 {
				var b []byte
				for _, e := range evs {
					b = appendEvent(b, e.id, e.msg)
				}
				if !cn.write(b) {
					return
				}
			}
		case <-ka:
			if !cn.write(keepAliveComment) {
				return
			}
		case <-alive:
			probeWait, probeNext = nil, time.After(max(rep.h.opts.KeepAlive, rep.timeout))
		case <-probeNext:
			probeNext, probeWait = nil, time.After(rep.timeout)
			rep.publish(replicaTopic(owner(f.name)), &busMsg{T: "probe", S: s.id, Stream: f.name, By: rep.id})
		case <-probeWait:
			// The replica writing the stream is gone, and its call with it.
			rep.h.logger.Warn("mcphttp: the replica writing a stream does not answer; the stream ends", "session", s.id, "stream", f.name)
			ctx, cancel := rep.ctx(context.Background())
			_, _ = rep.events.Append(ctx, s.id, f.name, endMarker)
			cancel()
			return
		case <-f.stop:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// isResponse reports whether msg is a JSON-RPC response.
func isResponse(msg []byte) bool {
	var env envelope
	return env.Scan(msg) && env.IsResponse()
}
