package runtime

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime/internal/cancelhook"
)

// Handler serves the requests and notifications that arrive on a connection, through a
// Processor, or over HTTP (package runtime/rpchttp).
type Handler interface {
	// ServeRPC answers one request. For a notification the result and error are discarded.
	ServeRPC(ctx context.Context, req *Request) (result json.RawMessage, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, req *Request) (json.RawMessage, error)

// ServeRPC calls f(ctx, req).
func (f HandlerFunc) ServeRPC(ctx context.Context, req *Request) (json.RawMessage, error) {
	return f(ctx, req)
}

// incoming is the context a handler runs in and the request it serves, in one
// allocation: it answers ConnFromContext and RequestIDFromContext itself instead of
// stacking context.WithValue layers per request.
type incoming struct {
	context.Context
	cancel context.CancelFunc // nil when untracked (no CancelMethod in a Processor)
	srv    *server            // the server serving it; srv.conn is its Conn, nil in a Processor
	req    Request
	calls  int // its Calls and Batches to the peer under way; under conn.qmu
	// barrier, when set, is taken and released by a cancellation after it
	// cancels the context (package cancelhook).
	barrier atomic.Pointer[sync.Mutex]
}

type incomingKey struct{}

// Value answers for incomingKey and defers every other key to the parent context.
func (in *incoming) Value(key any) any {
	switch key.(type) {
	case incomingKey, cancelhook.Key:
		return in
	}
	return in.Context.Value(key)
}

// SetCancelBarrier implements cancelhook.Barrier.
func (in *incoming) SetCancelBarrier(mu *sync.Mutex) { in.barrier.Store(mu) }

func incomingFrom(ctx context.Context) *incoming {
	in, _ := ctx.Value(incomingKey{}).(*incoming)
	return in
}

// ConnFromContext returns the connection a handler's request arrived on, so the handler
// can call back the peer. It returns nil in a Processor (so over HTTP) and outside a
// handler.
func ConnFromContext(ctx context.Context) *Conn {
	if in := incomingFrom(ctx); in != nil {
		return in.srv.conn
	}
	return nil
}

// RequestIDFromContext returns the id of the request a handler is serving; the zero ID
// for a notification or outside a handler.
func RequestIDFromContext(ctx context.Context) ID {
	if in := incomingFrom(ctx); in != nil {
		return in.req.ID
	}
	return ID{}
}
