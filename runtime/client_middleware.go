package runtime

import (
	"context"
	"fmt"
	"sync"
)

// CallKind says what an outgoing call is.
type CallKind uint8

// The kinds of outgoing call.
const (
	KindCall         CallKind = iota // a request, answered by a result or an error (Call, CallIdempotent)
	KindNotification                 // a notification (Notify): nothing comes back
	KindStream                       // a stream method's call (CallStream)
	KindBatch                        // a batch (Batch): the calls are in ClientCall.Batch
)

// ClientCall is one outgoing call as client middleware sees it. Middleware may
// read and change it before calling next (a method renamed, params replaced) and
// read it after. A WrappedCaller reuses the ClientCall of a request or a
// notification once its chain has returned, so that a call through middleware
// allocates nothing for it: middleware must not keep the pointer, or use it
// from a goroutine of its own, after it returns (copy the fields it needs). A
// stream's and a batch's ClientCall are not reused.
type ClientCall struct {
	Kind   CallKind
	Method string // "" for a batch
	Params any    // what the caller passed, encoded by the transport
	// Result is where a KindCall's result is decoded (nil discards it); after next
	// returns nil it holds the result.
	Result any
	// Idempotent says that the method may run more than once with the effect of
	// once (CallIdempotent: //rpcgen:method idempotent, or a tool that is
	// readonly or idempotent), so a call lost in flight may be retried.
	Idempotent bool
	// Stream is a KindStream call's stream, set when next returns nil; middleware
	// may replace it with one that wraps it (to see its end, say).
	Stream ItemStream
	// Batch holds a KindBatch call's calls, each with its own Result and Err.
	Batch []*BatchCall
	// Transport is the caller's network transport (TransportPipe, TransportTCP,
	// ...) when it says so (a Conn, an rpchttp.Client), else "".
	Transport string
}

// Invoker sends one outgoing call: the next step of a client middleware chain.
type Invoker func(ctx context.Context, call *ClientCall) error

// ClientMiddleware wraps the sending of each outgoing call: for headers
// (WithCallHeaders), retries (Retry), logging, metrics or tracing. A panic in
// one is not recovered: it is the caller's own goroutine.
type ClientMiddleware func(next Invoker) Invoker

// Batcher is a Caller that sends batches (Conn, rpchttp.Client).
type Batcher interface {
	Batch(ctx context.Context, calls []*BatchCall) error
}

// WrappedCaller is a Caller whose calls go through client middleware. It
// forwards each kind of call to the Caller it wraps: CallIdempotent (to an
// IdempotentCaller's, which may retry), CallStream and Batch, so generated clients
// keep every feature of the transport. Its methods are safe for concurrent use.
type WrappedCaller struct {
	next Caller
	tp   interface{ Transport() string } // next, when it says its transport
	send Invoker
}

var (
	_ IdempotentCaller = (*WrappedCaller)(nil)
	_ StreamCaller     = (*WrappedCaller)(nil)
	_ Batcher          = (*WrappedCaller)(nil)
)

// WrapCaller returns c with its calls going through mws, the first outermost.
// A generated client built on it (NewXClient(runtime.WrapCaller(conn, mws...)))
// sends every call through them.
func WrapCaller(c Caller, mws ...ClientMiddleware) *WrappedCaller {
	w := &WrappedCaller{next: c}
	w.tp, _ = c.(interface{ Transport() string })
	w.send = w.invoke
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			w.send = mws[i](w.send)
		}
	}
	return w
}

// Unwrap returns the Caller w wraps.
func (w *WrappedCaller) Unwrap() Caller { return w.next }

// Transport returns the wrapped caller's network transport, if it says.
func (w *WrappedCaller) Transport() string {
	if w.tp == nil {
		return ""
	}
	return w.tp.Transport()
}

// invoke is the end of the chain: the call itself.
func (w *WrappedCaller) invoke(ctx context.Context, call *ClientCall) error {
	switch call.Kind {
	case KindCall:
		if ic, ok := w.next.(IdempotentCaller); ok && call.Idempotent {
			return ic.CallIdempotent(ctx, call.Method, call.Params, call.Result)
		}
		return w.next.Call(ctx, call.Method, call.Params, call.Result)
	case KindNotification:
		return w.next.Notify(ctx, call.Method, call.Params)
	case KindStream:
		sc, ok := w.next.(StreamCaller)
		if !ok {
			return fmt.Errorf("call %s: %T carries no streams (it has no CallStream method)", call.Method, w.next)
		}
		s, err := sc.CallStream(ctx, call.Method, call.Params)
		call.Stream = s
		return err
	case KindBatch:
		b, ok := w.next.(Batcher)
		if !ok {
			return fmt.Errorf("batch: %T sends no batches (it has no Batch method)", w.next)
		}
		return b.Batch(ctx, call.Batch)
	}
	return fmt.Errorf("call %s: unknown call kind %d", call.Method, call.Kind)
}

// callPool holds the ClientCalls of requests and notifications between calls.
var callPool = sync.Pool{New: func() any { return new(ClientCall) }}

// sendPooled runs a request's or a notification's call, held in a pooled
// ClientCall, through the chain, and puts it back cleared.
func (w *WrappedCaller) sendPooled(ctx context.Context, kind CallKind, method string, params, result any, idempotent bool) error {
	call := callPool.Get().(*ClientCall)
	*call = ClientCall{Kind: kind, Method: method, Params: params, Result: result, Idempotent: idempotent, Transport: w.Transport()}
	err := w.send(ctx, call)
	*call = ClientCall{}
	callPool.Put(call)
	return err
}

// Call sends a request through the middleware.
func (w *WrappedCaller) Call(ctx context.Context, method string, params, result any) error {
	return w.sendPooled(ctx, KindCall, method, params, result, false)
}

// CallIdempotent sends a request for an idempotent method through the
// middleware (ClientCall.Idempotent is set).
func (w *WrappedCaller) CallIdempotent(ctx context.Context, method string, params, result any) error {
	return w.sendPooled(ctx, KindCall, method, params, result, true)
}

// Notify sends a notification through the middleware.
func (w *WrappedCaller) Notify(ctx context.Context, method string, params any) error {
	return w.sendPooled(ctx, KindNotification, method, params, nil, false)
}

// CallStream calls a stream method through the middleware.
func (w *WrappedCaller) CallStream(ctx context.Context, method string, params any) (ItemStream, error) {
	call := &ClientCall{Kind: KindStream, Method: method, Params: params, Transport: w.Transport()}
	if err := w.send(ctx, call); err != nil {
		if call.Stream != nil {
			call.Stream.Close()
		}
		return nil, err
	}
	if call.Stream == nil {
		return nil, fmt.Errorf("call %s: client middleware returned no stream", method)
	}
	return call.Stream, nil
}

// Batch sends a batch through the middleware, as one call of KindBatch.
func (w *WrappedCaller) Batch(ctx context.Context, calls []*BatchCall) error {
	return w.send(ctx, &ClientCall{Kind: KindBatch, Batch: calls, Transport: w.Transport()})
}

// Retry is client middleware that tries a call again as policy says (see
// RetryPolicy.Do and Retryable): a call that was never sent, whatever the method,
// and one lost in flight only when it is idempotent (ClientCall.Idempotent), with
// jittered backoff in between. It is for transports that do not retry on their
// own, such as rpchttp.Client; a Redialer already retries with its RetryPolicy. A
// stream is retried only while it could not be opened, a batch only when it was
// not sent.
func Retry(policy RetryPolicy) ClientMiddleware {
	return func(next Invoker) Invoker {
		return func(ctx context.Context, call *ClientCall) error {
			idempotent := call.Idempotent && call.Kind == KindCall
			return policy.Do(ctx, idempotent, func(ctx context.Context) error {
				if call.Stream != nil {
					call.Stream.Close()
					call.Stream = nil
				}
				return next(ctx, call)
			})
		}
	}
}
