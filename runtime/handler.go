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
//
// A tracked request (a CancelMethod, cancel.go) can be cancelled on its own, under
// its parent context. The cancelable context that does it is made when the handler
// first needs one (Done, or a Value once cancelled, for context.Cause): a handler
// that only ever asks Err, as most do, costs none, where context.WithCancel per
// request cost two allocations, a registration under the parent and a cancellation.
type incoming struct {
	context.Context         // the parent
	srv             *server // the server serving it; srv.conn is its Conn, nil in a Processor
	req             Request
	calls           int // its Calls and Batches to the peer under way; under conn.qmu
	// barrier, when set, is taken and released by a cancellation after it
	// cancels the context (package cancelhook).
	barrier atomic.Pointer[sync.Mutex]

	tracked bool                      // cancelable on its own (set before the handler runs)
	state   atomic.Uint32             // live, cancelledSelf or cancelledAfterParent
	own     atomic.Pointer[ownCancel] // the cancelable context, once made
}

// An incoming request's cancellation state, before its own context is made.
const (
	live                 = iota
	cancelledSelf        // cancelled while its parent was not: context.Canceled
	cancelledAfterParent // cancelled once its parent was: the parent's error and cause
)

// ownCancel is a tracked request's own cancelable context.
type ownCancel struct {
	ctx    context.Context
	cancel context.CancelFunc
}

type incomingKey struct{}

// Value answers for incomingKey and defers every other key to the request's own
// context once there is one (a context derived from the request's finds it
// cancelable, and context.Cause its cause), to the parent otherwise.
func (in *incoming) Value(key any) any {
	switch key.(type) {
	case incomingKey, cancelhook.Key:
		return in
	}
	if o := in.own.Load(); o != nil {
		return o.ctx.Value(key)
	}
	if in.state.Load() == cancelledSelf {
		return in.ownContext().Value(key)
	}
	return in.Context.Value(key)
}

// Done is the request's own context's channel, made now if need be, for a tracked
// request; the parent's otherwise.
func (in *incoming) Done() <-chan struct{} {
	if !in.tracked {
		return in.Context.Done()
	}
	return in.ownContext().Done()
}

// Err is the request's own context's error once there is one, context.Canceled
// once it was cancelled before its parent, the parent's error otherwise.
func (in *incoming) Err() error {
	if o := in.own.Load(); o != nil {
		return o.ctx.Err()
	}
	if in.state.Load() == cancelledSelf {
		return context.Canceled
	}
	return in.Context.Err()
}

// ownContext returns the tracked request's own cancelable context, made on the
// first call in the state the request is in: live, under its parent; cancelled
// before its parent, cancelled with context.Canceled (its parent's values, not its
// cancellation); cancelled after its parent, under it, which cancelled it already.
func (in *incoming) ownContext() context.Context {
	if o := in.own.Load(); o != nil {
		return o.ctx
	}
	o := new(ownCancel)
	if in.state.Load() == cancelledSelf {
		o.ctx, o.cancel = context.WithCancel(context.WithoutCancel(in.Context))
	} else {
		o.ctx, o.cancel = context.WithCancel(in.Context)
	}
	if !in.own.CompareAndSwap(nil, o) { // made meanwhile by another goroutine
		o.cancel()
		return in.own.Load().ctx
	}
	if in.state.Load() != live {
		o.cancel() // cancelled before it was made, or while
	}
	return o.ctx
}

// cancelSelf cancels a tracked request's context: its own context's if there is one,
// otherwise its state says it was cancelled (and whether its parent was first).
func (in *incoming) cancelSelf() {
	if o := in.own.Load(); o != nil {
		in.state.CompareAndSwap(live, cancelledSelf)
		o.cancel()
		return
	}
	st := uint32(cancelledSelf)
	if in.Context.Err() != nil {
		st = cancelledAfterParent
	}
	in.state.CompareAndSwap(live, st)
	if o := in.own.Load(); o != nil { // made meanwhile
		o.cancel()
	}
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
