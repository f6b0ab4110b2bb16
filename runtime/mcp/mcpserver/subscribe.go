package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// metaSubscriptionID is the _meta key naming the subscriptions/listen stream
// a notification belongs to (2026-07-28).
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// hub holds where notifications unrelated to a request go: the legacy
// sessions with an outbound and the open subscriptions/listen streams.
type hub struct {
	mu        sync.Mutex
	sessions  map[*Session]struct{}
	listeners map[*listenStream]struct{}

	ended   chan struct{} // closed by EndSubscriptions
	endOnce sync.Once
}

func (h *hub) addSession(ss *Session) {
	h.mu.Lock()
	if h.sessions == nil {
		h.sessions = make(map[*Session]struct{})
	}
	h.sessions[ss] = struct{}{}
	h.mu.Unlock()
}

func (h *hub) removeSession(ss *Session) {
	h.mu.Lock()
	delete(h.sessions, ss)
	h.mu.Unlock()
}

// snapshot returns the sessions and listeners, to send to without the lock.
func (h *hub) snapshot() ([]*Session, []*listenStream) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ss := make([]*Session, 0, len(h.sessions))
	for s := range h.sessions {
		ss = append(ss, s)
	}
	ls := make([]*listenStream, 0, len(h.listeners))
	for l := range h.listeners {
		ls = append(ls, l)
	}
	return ss, ls
}

// sessionSubs is a legacy session's side of notifications: where they go,
// the resources it subscribed to, and what its initialize declared.
// Lock order: sessionSubs.mu before hub.mu.
type sessionSubs struct {
	mu     sync.Mutex
	send   func(method string, params []byte) // nil: nowhere
	uris   map[string]bool
	kinds  kinds // the optional features the initialize result declared
	closed bool
}

// setOutboundMsg is SessionControl.SetOutbound: send gets each message
// whole, one at a time.
func (ss *Session) setOutboundMsg(send func(msg []byte)) {
	if send == nil {
		return
	}
	var mu sync.Mutex
	ss.setOutbound(func(method string, params []byte) {
		msg := notification(method, params)
		mu.Lock()
		defer mu.Unlock()
		send(msg)
	})
}

func (ss *Session) setOutbound(send func(method string, params []byte)) {
	ss.subs.mu.Lock()
	defer ss.subs.mu.Unlock()
	if ss.subs.closed {
		return
	}
	ss.subs.send = send
	ss.srv.hub.addSession(ss)
}

// initialized records what initialize declared and, for a session served
// over a connection, takes the connection as its outbound.
func (ss *Session) initialized(ctx context.Context, k kinds) {
	ss.subs.mu.Lock()
	ss.subs.kinds = k
	set := ss.subs.send != nil
	ss.subs.mu.Unlock()
	if set {
		return
	}
	if _, inProcess := ctx.Value(handleKey{}).(*handleCtx); inProcess {
		return
	}
	if conn := runtime.ConnFromContext(ctx); conn != nil {
		ss.setOutbound(func(method string, params []byte) {
			var p any
			if params != nil {
				p = json.RawMessage(params)
			}
			if err := conn.Notify(context.Background(), method, p); err != nil {
				ss.logger.Debug("mcp: send notification", "method", method, "err", err)
			}
		})
	}
}

// Close ends the session: it drops its subscriptions, stops its outbound
// and fails every request it sent the client that is still awaiting an
// answer. A transport calls it when the session ends; Serve does when the
// connection ends.
func (ss *Session) Close() {
	ss.subs.mu.Lock()
	ss.subs.closed, ss.subs.send, ss.subs.uris = true, nil, nil
	ss.srv.hub.removeSession(ss)
	ss.subs.mu.Unlock()
	ss.out.closeAll()
	ss.ends.run()
}

// sender returns where a notification for the session goes, or nil when it
// must not get it: want reports whether it does, under the lock.
func (ss *Session) sender(want func(*sessionSubs) bool) func(string, []byte) {
	ss.subs.mu.Lock()
	defer ss.subs.mu.Unlock()
	if ss.subs.send == nil || ss.state.Load() == nil || !want(&ss.subs) {
		return nil
	}
	return ss.subs.send
}

// notification encodes a JSON-RPC notification; nil params are left out.
func notification(method string, params []byte) []byte {
	msg := make([]byte, 0, len(params)+len(method)+40)
	msg = append(msg, `{"jsonrpc":"2.0","method":`...)
	msg = jsonenc.AppendString(msg, method)
	if params != nil {
		msg = append(msg, `,"params":`...)
		msg = append(msg, params...)
	}
	return append(msg, '}')
}

// listChanged announces method, a list_changed notification, for kind (0:
// tools, always declared).
func (s *Server) listChanged(method string, kind kinds) {
	var feature string
	if names := featureNames(kind); len(names) > 0 {
		feature = names[0]
	}
	s.announce(Change{Method: method, Feature: feature})
}

// ResourceUpdated tells the clients subscribed to the resource uri that it
// changed (notifications/resources/updated): every legacy session that
// called resources/subscribe for it, through its outbound, and every
// 2026-07-28 subscriptions/listen stream whose resourceSubscriptions hold it.
// With ServerOptions.Bus, those of every replica.
func (s *Server) ResourceUpdated(uri string) {
	if clean, err := cleanFileURI(uri); err == nil {
		uri = clean
	}
	params := append(jsonenc.AppendString([]byte(`{"uri":`), uri), '}')
	s.announce(Change{Method: mcp.NotificationResourcesUpdated, Params: params, URI: uri})
}

// Log sends a log message (notifications/message) that belongs to no
// request to every legacy session whose logging/setLevel lets level
// through: on its standalone stream over HTTP, on the connection over
// stdio. With ServerOptions.Bus, to the sessions of every replica. data is
// any value encoding/json can encode; one that cannot be encoded is
// dropped. 2026-07-28 has no place for such messages.
func (s *Server) Log(level mcp.LogLevel, logger string, data any) {
	if _, ok := levelRank(level); !ok {
		return
	}
	raw, ok := data.(json.RawMessage)
	if !ok || !json.Valid(raw) {
		if raw = marshal(data); raw == nil {
			return
		}
	}
	b := append([]byte(`{"level":"`), level...)
	b = append(b, '"')
	if logger != "" {
		b = jsonenc.AppendString(append(b, `,"logger":`...), logger)
	}
	b = append(append(append(b, `,"data":`...), raw...), '}')
	s.announce(Change{Method: mcp.NotificationMessage, Params: b, Level: level})
}

// deliver sends c to this process's legacy sessions that want it and to
// its listen streams that asked for it.
func (s *Server) deliver(c Change) {
	sessions, listeners := s.hub.snapshot()
	kind := featureKinds([]string{c.Feature})
	var want func(*sessionSubs) bool
	switch c.Method {
	case mcp.NotificationResourcesUpdated:
		want = func(sub *sessionSubs) bool { return sub.uris[c.URI] }
	case mcp.NotificationMessage:
		rank, _ := levelRank(c.Level)
		want = func(*sessionSubs) bool { return true }
		sessions = slices.DeleteFunc(sessions, func(ss *Session) bool { return !ss.allowsLog(rank) })
		listeners = nil
	default:
		want = func(sub *sessionSubs) bool { return kind == 0 || sub.kinds&kind != 0 }
	}
	for _, ss := range sessions {
		if send := ss.sender(want); send != nil {
			send(c.Method, c.Params)
		}
	}
	for _, l := range listeners {
		switch {
		case c.Method == mcp.NotificationResourcesUpdated:
			if l.uris[c.URI] {
				// The listen stream's params: its _meta, then the uri.
				l.send(c.Method, jsonenc.AppendString([]byte(`,"uri":`), c.URI))
			}
		case kind == 0 && l.tools || kind == kindPrompts && l.prompts || kind == kindResources && l.resources:
			l.send(c.Method, nil)
		}
	}
}

// EndSubscriptions ends every subscriptions/listen stream with its complete
// result, and makes every later one end the same way at once. A transport
// shutting down calls it, so its streams end gracefully.
func (s *Server) EndSubscriptions() {
	s.hub.endOnce.Do(func() { close(s.hub.ended) })
}

// subscribe serves a legacy resources/subscribe: a resource the server can
// read (a fixed one, or one a template matches).
func (ss *Session) subscribe(ctx context.Context, p *reqParams) (json.RawMessage, error) {
	r := ss.srv.reg.Load()
	uri, err := resourceURI(p.uri)
	if err != nil {
		return nil, err
	}
	if _, _, ok := r.resolve(uri); !ok {
		return nil, ResourceNotFound(uri)
	}
	if err := ss.changeState(ctx, StateChange{Subscribe: uri}); err != nil {
		return nil, err
	}
	ss.subs.mu.Lock()
	defer ss.subs.mu.Unlock()
	if !ss.subs.closed {
		if ss.subs.uris == nil {
			ss.subs.uris = make(map[string]bool)
		}
		ss.subs.uris[uri] = true
	}
	return emptyResult, nil
}

// unsubscribe serves a legacy resources/unsubscribe.
func (ss *Session) unsubscribe(ctx context.Context, p *reqParams) (json.RawMessage, error) {
	uri, err := resourceURI(p.uri)
	if err != nil {
		return nil, err
	}
	if err := ss.changeState(ctx, StateChange{Unsubscribe: uri}); err != nil {
		return nil, err
	}
	ss.subs.mu.Lock()
	delete(ss.subs.uris, uri)
	ss.subs.mu.Unlock()
	return emptyResult, nil
}
