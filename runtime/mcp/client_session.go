package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
)

// ConnectSession connects to a server session in the same process: every
// request is one synchronous (*Session).Handle call on the caller's
// goroutine, with no encoding beyond the messages themselves and no
// goroutines per call. A call's context is the context the tool runs in, so
// cancelling it stops the tool without a notifications/cancelled message;
// progress and log callbacks run on the calling goroutine. A Session holds
// one connection's state (a legacy handshake among it): give each Client its
// own.
func ConnectSession(ctx context.Context, ss *Session, opts ClientOptions) (*Client, error) {
	c := newClient(opts)
	c.t = newClientSession(c, ss)
	return c.start(ctx)
}

// clientSession is a transport to an in-process Session: each request is one
// synchronous Handle call on the caller's goroutine.
type clientSession struct {
	c      *Client
	ss     *Session
	notify func([]byte) // routes log messages; built once
	mu     sync.Mutex
	closed bool
}

func newClientSession(c *Client, ss *Session) *clientSession {
	t := &clientSession{c: c, ss: ss}
	t.notify = t.route
	return t
}

// route handles a message the session produced, other than the reply.
func (t *clientSession) route(msg []byte) {
	var env clientEnvelope
	if !env.parse(msg) || env.method == nil {
		return
	}
	if env.id != nil {
		// Answered on its own goroutine: Handle may not be reentrant.
		reply := t.c.answerServerRequest(&env)
		go t.ss.Handle(context.Background(), reply, nil)
		return
	}
	if !env.methodIs("notifications/progress") {
		t.c.notification(&env)
	}
}

func (t *clientSession) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

func (t *clientSession) roundTrip(ctx context.Context, id int64, msg []byte, onProgress func(ProgressNotification)) (clientReply, error) {
	if t.isClosed() {
		return clientReply{}, runtime.ErrClosed
	}
	notify := t.notify
	if onProgress != nil {
		notify = func(m []byte) {
			var env clientEnvelope
			if env.parse(m) && env.id == nil && env.methodIs("notifications/progress") {
				if pn, ok := clientParseProgress(env.params); ok {
					// Once the caller gave up, its callback hears nothing more.
					if tok, ok := clientParseID(pn.ProgressToken); ok && tok == id && ctx.Err() == nil {
						onProgress(pn)
					}
				}
				return
			}
			t.route(m)
		}
	}
	reply := t.ss.Handle(ctx, msg, notify)
	if err := ctx.Err(); err != nil {
		// The session saw the context end too, and stopped the call.
		return clientReply{}, err
	}
	if reply == nil {
		return clientReply{}, errors.New("mcp: the session sent no response")
	}
	var env clientEnvelope
	if !env.parse(reply) || !env.isResponse() {
		return clientReply{}, errors.New("mcp: the session's reply is not a JSON-RPC response")
	}
	if got, ok := clientParseID(env.id); !ok || got != id {
		return clientReply{}, fmt.Errorf("mcp: the session answered id %s to request %d", env.id, id)
	}
	return clientReply{result: env.result, errObj: env.errObj}, nil
}

func (t *clientSession) send(ctx context.Context, msg []byte) error {
	if t.isClosed() {
		return runtime.ErrClosed
	}
	t.ss.Handle(ctx, msg, t.notify)
	return nil
}

func (t *clientSession) close() error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	return nil
}
