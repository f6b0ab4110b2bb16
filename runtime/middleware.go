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

// callHeadersKey finds the headers of WithCallHeaders and WithCallHeaderFunc.
type callHeadersKey struct{}

// headerSource is one WithCallHeaders or WithCallHeaderFunc, over the ones
// before it in the context.
type headerSource struct {
	prev *headerSource
	h    map[string][]string
	f    CallHeaderFunc
}

// CallHeaderFunc adds headers to one outgoing request of a call: set(key,
// value) for each. ctx is the request's context, the call's or one derived
// from it.
type CallHeaderFunc func(ctx context.Context, set func(key, value string))

// WithCallHeaders returns a context whose calls carry the headers h, where the
// transport has headers: the clients of rpchttp and mcphttp send them as HTTP
// request headers (http.Header is this type). Headers already in ctx are kept
// unless h names the same key. Client middleware uses it to add an
// Authorization header to a call, say.
func WithCallHeaders(ctx context.Context, h map[string][]string) context.Context {
	prev, _ := ctx.Value(callHeadersKey{}).(*headerSource)
	return context.WithValue(ctx, callHeadersKey{}, &headerSource{prev: prev, h: h})
}

// WithCallHeaderFunc is WithCallHeaders for headers made only when a request
// that carries headers is sent: f runs then, for each request, so a transport
// without headers costs nothing. Middleware that propagates trace context uses
// it.
func WithCallHeaderFunc(ctx context.Context, f CallHeaderFunc) context.Context {
	prev, _ := ctx.Value(callHeadersKey{}).(*headerSource)
	return context.WithValue(ctx, callHeadersKey{}, &headerSource{prev: prev, f: f})
}

// AddCallHeaders sets in dst (an http.Header) every header that
// WithCallHeaders and WithCallHeaderFunc put in ctx, the later over the
// earlier, with canonical keys: what a transport with headers calls for each
// request it sends.
func AddCallHeaders(ctx context.Context, dst map[string][]string) {
	if src, _ := ctx.Value(callHeadersKey{}).(*headerSource); src != nil {
		src.add(ctx, dst)
	}
}

func (s *headerSource) add(ctx context.Context, dst map[string][]string) {
	if s.prev != nil {
		s.prev.add(ctx, dst)
	}
	for k, v := range s.h {
		dst[canonicalHeaderKey(k)] = v
	}
	if s.f != nil {
		s.f(ctx, func(k, v string) { dst[canonicalHeaderKey(k)] = []string{v} })
	}
}

// CallHeadersFromContext returns the headers WithCallHeaders and
// WithCallHeaderFunc put in ctx, merged into a new map, or nil when there are
// none.
func CallHeadersFromContext(ctx context.Context) map[string][]string {
	src, _ := ctx.Value(callHeadersKey{}).(*headerSource)
	if src == nil {
		return nil
	}
	h := map[string][]string{}
	src.add(ctx, h)
	return h
}

// canonicalHeaderKey is http.CanonicalHeaderKey for the ASCII tokens header
// names are (the runtime links no net/http): "traceparent" → "Traceparent".
func canonicalHeaderKey(k string) string {
	upper := true
	for i := 0; i < len(k); i++ {
		c := k[i]
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			b := []byte(k)
			for j := i; j < len(b); j++ {
				c := b[j]
				if upper && 'a' <= c && c <= 'z' {
					b[j] = c - 'a' + 'A'
				} else if !upper && 'A' <= c && c <= 'Z' {
					b[j] = c - 'A' + 'a'
				}
				upper = b[j] == '-'
			}
			return string(b)
		}
		upper = c == '-'
	}
	return k
}
