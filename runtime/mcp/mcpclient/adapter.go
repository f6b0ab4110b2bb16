package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// Transport carries a Client's messages to a server over a transport
// this package does not implement itself, such as the HTTP transports of
// package mcphttp. ConnectTransport runs a Client over one.
type Transport interface {
	// RoundTrip sends the request msg, whose id is id, and returns the
	// server's response to it: one JSON-RPC response object. Every other
	// message the server sends about the request before its response
	// (notifications, requests) goes to incoming, in order, before RoundTrip
	// returns; incoming must not be called after. When ctx ends first,
	// RoundTrip tells the server as its protocol requires (a legacy session's
	// notifications/cancelled, or closing a 2026-07-28 response stream) and
	// returns ctx.Err().
	//
	// A transport that gets an answer which is not JSON-RPC (an HTTP status
	// with no JSON-RPC error body, say) should return a response carrying a
	// JSON-RPC error that says so, so the Client's handshake can fall back to
	// the older era as the protocol describes.
	RoundTrip(ctx context.Context, id int64, msg []byte, incoming func(msg []byte)) ([]byte, error)
	// Send sends the notification or response msg.
	Send(ctx context.Context, msg []byte) error
	// Close ends the transport; calls waiting on it fail.
	Close() error
}

// ConnectTransport connects a Client over t and runs the handshake
// Options.ProtocolVersion asks for. On failure t is closed. It looks for the
// optional capabilities of t: IncomingSetter (messages outside any
// RoundTrip), SessionIDReporter, EndpointReporter, SessionRenewer (the
// client starts a new session when the server ended the old one; see
// Options.NoReinitialize) and RequestAnswerer (a dual-era client's probe
// waits within ctx, and Options.ProbeTimeout does not apply).
func ConnectTransport(ctx context.Context, t Transport, opts Options) (*Client, error) {
	c := newClient(opts)
	a := newClientAdapter(c, t)
	c.t = a
	c.endpoint = endpointOf(t)
	if a, ok := t.(RequestAnswerer); ok {
		c.answersAll = a.AnswersEveryRequest()
	}
	if in, ok := t.(IncomingSetter); ok {
		in.SetIncoming(a.routes)
	}
	if r, ok := t.(SessionRenewer); ok {
		r.SetSessionLost(c.sessionLost)
	}
	return c.start(ctx)
}

// NoCancel reports whether the end of ctx, the context of a RoundTrip, must
// not be told to the server: the handshake marks its own requests so, since
// initialize must not be cancelled.
func NoCancel(ctx context.Context) bool { return ctx.Value(clientNoCancelKey{}) != nil }

// clientAdapter is the clientTransport over a Transport: a request is
// one synchronous RoundTrip on the caller's goroutine.
type clientAdapter struct {
	c      *Client
	t      Transport
	routes func(msg []byte) // a.route, made once: a method value allocates
	mu     sync.Mutex
	closed bool
	// progress holds the calls waiting that asked for progress, by their
	// progress token (the request id): a server may send a call's progress
	// on another stream of the session than the call's own (mcp-go's server
	// sends some on a legacy session's standalone GET stream).
	progress map[int64]*progressSink
}

// progressSink hands a call's progress notifications to its callback, one
// at a time whichever stream they come on, and none after the call returned.
type progressSink struct {
	ctx  context.Context
	f    func(mcp.ProgressNotification)
	mu   sync.Mutex
	done bool
}

func (p *progressSink) deliver(pn mcp.ProgressNotification) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Once the caller gave up, its callback hears nothing more.
	if !p.done && p.ctx.Err() == nil {
		p.f(pn)
	}
}

func (p *progressSink) end() {
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
}

// sessionID returns the transport's session id, when it has one.
func (a *clientAdapter) sessionID() string {
	if s, ok := a.t.(SessionIDReporter); ok {
		return s.SessionID()
	}
	return ""
}

func newClientAdapter(c *Client, t Transport) *clientAdapter {
	a := &clientAdapter{c: c, t: t}
	a.routes = a.route
	return a
}

// route handles a message the server sent other than a response.
func (a *clientAdapter) route(msg []byte) {
	var env wire.Envelope
	if !env.Scan(msg) || env.Method == nil {
		return
	}
	if env.ID != nil {
		// Answered on its own goroutine: a handler may wait on a user, and
		// the transport may be delivering this message from the very call
		// that waits for the answer. The message is copied first, since the
		// transport may reuse it.
		var own wire.Envelope
		own.Scan(bytes.Clone(msg))
		go func() {
			reply := a.c.answerServerRequest(&own)
			if reply == nil {
				return // the server cancelled its request
			}
			if err := a.t.Send(context.Background(), reply); err != nil {
				a.c.logger.Debug("mcp: answer a server request", "err", err)
			}
		}()
		return
	}
	if !env.MethodIs(mcp.NotificationProgress) {
		a.c.notification(&env)
		return
	}
	a.routeProgress(env.Params)
}

// routeProgress hands a progress notification to the waiting call whose
// progress token it names, and drops it when none waits.
func (a *clientAdapter) routeProgress(params []byte) {
	pn, ok := clientParseProgress(params)
	if !ok {
		return
	}
	tok, ok := wire.ParseID(pn.ProgressToken)
	if !ok {
		return
	}
	a.mu.Lock()
	p := a.progress[tok]
	a.mu.Unlock()
	if p != nil {
		p.deliver(pn)
	}
}

func (a *clientAdapter) isClosed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

func (a *clientAdapter) roundTrip(ctx context.Context, id int64, msg []byte, onProgress func(mcp.ProgressNotification)) (clientReply, error) {
	if a.isClosed() {
		return clientReply{}, runtime.ErrClosed
	}
	var p *progressSink
	if onProgress != nil {
		p = &progressSink{ctx: ctx, f: onProgress}
		a.mu.Lock()
		if a.progress == nil {
			a.progress = make(map[int64]*progressSink)
		}
		a.progress[id] = p
		a.mu.Unlock()
	}
	reply, err := a.t.RoundTrip(ctx, id, msg, a.routes)
	if p != nil {
		// The call has its answer: progress from any stream ends here.
		p.end()
		a.mu.Lock()
		delete(a.progress, id)
		a.mu.Unlock()
	}
	if cerr := ctx.Err(); cerr != nil {
		return clientReply{}, cerr
	}
	if err != nil {
		return clientReply{}, err
	}
	var env wire.Envelope
	if !env.Scan(reply) || !env.IsResponse() {
		return clientReply{}, errors.New("mcp: the server's reply is not a JSON-RPC response")
	}
	if got, ok := wire.ParseID(env.ID); !ok || got != id {
		return clientReply{}, fmt.Errorf("mcp: the server answered id %s to request %d", env.ID, id)
	}
	return clientReply{result: env.Result, errObj: env.Error}, nil
}

func (a *clientAdapter) send(ctx context.Context, msg []byte) error {
	if a.isClosed() {
		return runtime.ErrClosed
	}
	return a.t.Send(ctx, msg)
}

func (a *clientAdapter) close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	return a.t.Close()
}
