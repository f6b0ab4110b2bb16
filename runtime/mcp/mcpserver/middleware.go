package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime"
)

// ToolCall is one tools/call as tool middleware (ServerOptions.ToolMiddleware)
// sees it.
type ToolCall struct {
	Tool      *Tool           // the tool called (its name, annotations, schemas)
	Arguments json.RawMessage // the raw arguments object; nil when the call sent none
	// Principal is the authenticated caller (WithPrincipal; mcphttp sets the
	// bearer token's subject), "" when none.
	Principal       string
	Session         *Session
	ProtocolVersion string     // the revision the call is made under
	RequestID       runtime.ID // the tools/call request's id
}

// ToolCallHandler runs one tool call: the next step of a tool middleware chain.
// An error is the tool's failure, which the client gets as an isError result
// (see "Tool errors" in docs/mcp.md), unless it is a ProtocolError.
type ToolCallHandler func(ctx context.Context, call *ToolCall) (json.RawMessage, error)

// ToolMiddleware wraps every tool call of a server: it sees the tool, its raw
// arguments and the principal before the tool runs, and its result or error
// after, for logging, auditing, metrics or a policy (a scope a tool needs, say).
// A panic in one is a failed call, as a tool's panic is.
type ToolMiddleware func(next ToolCallHandler) ToolCallHandler

// ProtocolError wraps e so that a tool, or tool middleware, that returns it
// answers the tools/call with the JSON-RPC error e instead of a tool error
// result: for refusals that are not the tool's failure (a missing scope, an
// unknown caller).
func ProtocolError(e *runtime.Error) error { return &protocolError{e} }

type protocolError struct{ e *runtime.Error }

func (p *protocolError) Error() string { return p.e.Error() }
func (p *protocolError) Unwrap() error { return p.e }

// asProtocolError returns the error err's chain holds for ProtocolError, or nil.
func asProtocolError(err error) *runtime.Error {
	var pe *protocolError
	if errors.As(err, &pe) {
		return pe.e
	}
	return nil
}

// toolChain builds the tool middleware chain, or nil when there is none.
func toolChain(mws []ToolMiddleware) ToolCallHandler {
	if len(mws) == 0 {
		return nil
	}
	h := ToolCallHandler(func(ctx context.Context, call *ToolCall) (json.RawMessage, error) {
		return call.Tool.Handler(ctx, call.Arguments)
	})
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			h = mws[i](h)
		}
	}
	return h
}

// sessionCtx carries the session to method middleware.
type sessionCtx struct {
	context.Context
	ss *Session
}

type sessionKey struct{}

func (c *sessionCtx) Value(key any) any {
	if _, ok := key.(sessionKey); ok {
		return c.ss
	}
	return c.Context.Value(key)
}

// SessionFromContext returns the session serving a request, in method
// middleware (ServerOptions.Middleware) and in the handlers below it; nil
// elsewhere, and when the server has no method middleware.
func SessionFromContext(ctx context.Context) *Session {
	ss, _ := ctx.Value(sessionKey{}).(*Session)
	return ss
}

// sessionHandler is the handler of ss: serveRPC, wrapped in the server's
// method middleware when it has any.
func (ss *Session) sessionHandler() runtime.Handler {
	base := runtime.HandlerFunc(ss.serveRPC)
	if len(ss.srv.opts.Middleware) == 0 {
		return base
	}
	inner := runtime.Chain(base, ss.srv.opts.Middleware...)
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if SessionFromContext(ctx) == ss {
			return inner.ServeRPC(ctx, req) // Handle's context has it
		}
		return inner.ServeRPC(&sessionCtx{Context: ctx, ss: ss}, req)
	})
}

// ID returns the session's id where the transport has one (mcphttp's
// Mcp-Session-Id, set with SessionControl.SetID), else "".
func (ss *Session) ID() string {
	if p := ss.id.Load(); p != nil {
		return *p
	}
	return ""
}

// sessionID is Session's id field's type.
type sessionID = atomic.Pointer[string]

// OnClose registers f to run once when the session ends (Close: its stream
// closed, its HTTP session deleted or expired), or at once if it has ended.
// Middleware that counts live sessions calls it when it sees initialize.
func (ss *Session) OnClose(f func()) {
	if !ss.ends.add(f) {
		f()
	}
}

// endHooks are the functions OnClose registered.
type endHooks struct {
	mu    sync.Mutex
	ended bool
	fs    []func()
}

func (e *endHooks) add(f func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ended {
		return false
	}
	e.fs = append(e.fs, f)
	return true
}

func (e *endHooks) run() {
	e.mu.Lock()
	fs := e.fs
	e.ended, e.fs = true, nil
	e.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Observer receives the notifications a server sends while it serves one
// request (progress, log messages), with their params.
type Observer func(method string, params json.RawMessage)

// ObserveNotification calls o: an Observer is a NotificationObserver.
func (o Observer) ObserveNotification(method string, params json.RawMessage) { o(method, params) }

// NotificationObserver is an Observer as a method, for a type that observes
// notifications with state of its own: see ObserverKey.
type NotificationObserver interface {
	ObserveNotification(method string, params json.RawMessage)
}

// ObserverKey is the context key under which ObserveNotifications keeps its
// Observer. A context of method middleware's own whose Value(ObserverKey{})
// is a NotificationObserver (the context itself, say) is observed as one
// ObserveNotifications returned, without the context and the observer costing
// an allocation each: ext/otel's middleware, which observes every traced
// request, does so.
type ObserverKey struct{}

// ObserveNotifications returns a context under which the notifications the
// server sends for the request (notifications/progress, notifications/message)
// are also passed to observe, on the goroutine sending them, before they go out.
// Method middleware (ServerOptions.Middleware) calls it on the context it passes
// on, to log or trace them; it has no effect elsewhere.
func ObserveNotifications(ctx context.Context, observe Observer) context.Context {
	return context.WithValue(ctx, ObserverKey{}, observe)
}

func observerFrom(ctx context.Context) NotificationObserver {
	o, _ := ctx.Value(ObserverKey{}).(NotificationObserver)
	if f, ok := o.(Observer); ok && f == nil {
		return nil
	}
	return o
}
