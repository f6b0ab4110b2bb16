package mcpserver

import (
	"context"

	"github.com/rpcgen/rpcgen/runtime"
)

// SessionControl is a transport's side of a Session: what the transport
// that serves the session tells it (where unprompted messages go, the
// session's id, where its state is kept), apart from the Session that
// handlers and middleware see. A transport gets it with the session, from
// Server.NewTransportSession or Server.RestoreSession, and calls its
// methods before it serves the session's first request. Its zero value
// controls nothing: calling a method on it panics.
type SessionControl struct{ ss *Session }

// NewTransportSession returns a new session of s, as NewSession does, with
// its control: a transport that gives sessions ids, sends their unprompted
// messages on a stream of its own or keeps their state elsewhere creates
// them with it.
func (s *Server) NewTransportSession() (*Session, SessionControl) {
	ss := s.NewSession()
	return ss, SessionControl{ss}
}

// Session returns the session c controls.
func (c SessionControl) Session() *Session { return c.ss }

// SetOutbound sets where the session sends the messages that are not part
// of a request's exchange: notifications/resources/updated for the
// resources the client subscribed to, and the list_changed notifications.
// A transport calls it once, before serving the session; Serve and
// ServeStdio send them on their connection without it. send must not block
// for long and may be called from any goroutine, but not concurrently with
// itself.
func (c SessionControl) SetOutbound(send func(msg []byte)) { c.ss.setOutboundMsg(send) }

// SetID records the session's id, for middleware to read (Session.ID): a
// transport with session ids calls it once it has given the session one.
func (c SessionControl) SetID(id string) { c.ss.id.Store(&id) }

// SetStateHook makes the session call hook with every change its client
// makes to its state, before the change takes effect: an error from hook
// fails the request (with that error when it is a *runtime.Error) and the
// change is not made. A transport that keeps the state elsewhere (several
// replicas) calls it before serving the session.
func (c SessionControl) SetStateHook(hook func(ctx context.Context, ch StateChange) error) {
	c.ss.ext().hook = hook
}

// SetRequestIDPrefix makes the requests the session sends its client
// (elicitation/create, sampling/createMessage, roots/list) have string ids
// that start with prefix, instead of integers: a transport serving one
// session from several replicas names each replica's requests apart, and
// routes a client's answer to the replica whose prefix its id has. Call it
// before serving the session.
func (c SessionControl) SetRequestIDPrefix(prefix string) { c.ss.ext().idPrefix = prefix }

// IgnoreCancelNotifications makes the session leave cancellation to its
// transport: a request's context is the one Handle is given, which the
// transport ends, without a cancelable context more per request for a
// notifications/cancelled to find (one that arrives is ignored). A
// transport serving 2026-07-28 requests over HTTP, where a client cancels
// by closing the response and sends no notification, calls it before
// serving the session.
func (c SessionControl) IgnoreCancelNotifications() {
	opts := c.ss.options()
	opts.CancelMethod = ""
	c.ss.proc = runtime.NewProcessor(opts)
}
