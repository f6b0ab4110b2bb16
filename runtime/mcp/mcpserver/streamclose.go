package mcpserver

import (
	"context"

	"github.com/rpcgen/rpcgen/runtime/mcp/internal/streamclose"
)

// closerFunc is a closeStream function as a streamclose.Closer.
type closerFunc func() bool

func (f closerFunc) CloseStream() bool { return f() }

// WithStreamCloser returns a context, for (*Session).Handle, under which
// CloseStream calls closeStream: a transport with resumable streams (package
// mcphttp) passes a function that ends the connection carrying the current
// request's stream while the request goes on, and reports whether it did.
func WithStreamCloser(ctx context.Context, closeStream func() bool) context.Context {
	return context.WithValue(ctx, streamclose.Key{}, streamclose.Closer(closerFunc(closeStream)))
}

// CloseStream ends the connection that carries the current request's
// messages without ending the request, as a server may with resumable
// Streamable HTTP streams (2025-11-25, "polling"): the client reconnects and
// receives everything sent meanwhile, the response included. ctx is a tool's
// context. A response that was to be JSON becomes an event stream first, so
// the client has an event id to resume from. It reports whether the
// transport could do so; on stdio, in process, over 2026-07-28 HTTP (where
// closing the stream would cancel the request) and in sessions older than
// 2025-11-25 (which have no polling), it does nothing and reports false.
func CloseStream(ctx context.Context) bool {
	c, ok := ctx.Value(streamclose.Key{}).(streamclose.Closer)
	if !ok {
		return false
	}
	return c.CloseStream()
}
