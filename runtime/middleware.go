package runtime

import (
	"context"
	"encoding/json"
)

// Middleware wraps a server's Handler: it sees each incoming request and
// notification before the handler, and its result or error after. Options.Middleware
// holds a chain of them; a panic in one is recovered as a handler's is (an Internal
// error, -32603, logged), so it never stops the connection. The request's id is
// RequestIDFromContext, its transport TransportFromContext.
//
//	logging := func(next runtime.Handler) runtime.Handler {
//		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
//			start := time.Now()
//			res, err := next.ServeRPC(ctx, req)
//			slog.InfoContext(ctx, "rpc", "method", req.Method, "took", time.Since(start), "err", err)
//			return res, err
//		})
//	}
type Middleware func(next Handler) Handler

// Chain returns h wrapped in mws, the first outermost: Chain(h, a, b) serves a
// request through a, then b, then h. A nil h answers every request with Method
// not found (which the middleware still sees); nil middleware is skipped.
func Chain(h Handler, mws ...Middleware) Handler {
	if h == nil {
		h = methodNotFound
	}
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			h = mws[i](h)
		}
	}
	return h
}

var methodNotFound = HandlerFunc(func(_ context.Context, req *Request) (json.RawMessage, error) {
	return nil, ErrMethodNotFound(req.Method)
})

// handlerOf is the handler a server built with opts runs: opts.Handler itself
// when no middleware is configured, so that costs nothing.
func handlerOf(opts Options) Handler {
	if len(opts.Middleware) == 0 {
		return opts.Handler
	}
	return Chain(opts.Handler, opts.Middleware...)
}

// Network transports Options.Transport names, as OpenTelemetry's
// network.transport attribute spells them.
const (
	TransportPipe = "pipe" // stdio and other pipes
	TransportTCP  = "tcp"  // TCP sockets, HTTP and WebSocket over them
	TransportUnix = "unix" // Unix domain sockets
)

// TransportFromContext returns the network transport (TransportPipe,
// TransportTCP, TransportUnix, or what Options.Transport said) of the connection
// or Processor a handler's request came through; "" when it was not said or ctx is
// not a handler's.
func TransportFromContext(ctx context.Context) string {
	if in := incomingFrom(ctx); in != nil {
		return in.srv.transport
	}
	return ""
}

// Transport returns the network transport of the connection (Options.Transport).
func (c *Conn) Transport() string { return c.srv.transport }

// callHeadersKey finds the headers of WithCallHeaders.
type callHeadersKey struct{}

// WithCallHeaders returns a context whose calls carry the headers h, where the
// transport has headers: the clients of rpchttp and mcphttp send them as HTTP
// request headers (http.Header is this type; use canonical keys). Headers already
// in ctx are kept unless h names the same key. Client middleware uses it to add an
// Authorization or a traceparent header to a call.
func WithCallHeaders(ctx context.Context, h map[string][]string) context.Context {
	if old := CallHeadersFromContext(ctx); len(old) > 0 {
		merged := make(map[string][]string, len(old)+len(h))
		for k, v := range old {
			merged[k] = v
		}
		for k, v := range h {
			merged[k] = v
		}
		h = merged
	}
	return context.WithValue(ctx, callHeadersKey{}, h)
}

// CallHeadersFromContext returns the headers WithCallHeaders put in ctx, or nil.
// The map must not be changed.
func CallHeadersFromContext(ctx context.Context) map[string][]string {
	h, _ := ctx.Value(callHeadersKey{}).(map[string][]string)
	return h
}
