package mcpclient

import (
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// A legacy session (2024-11-05 to 2025-11-25) starts with a successful
// initialize and ends when the client closes, when the server ends it (the
// client then starts a new one, if it renews sessions), or when the
// connection ends. Middleware hears its end through the initialize
// request (Request.OnSessionEnd): what telemetry needs to measure a
// session (ext/otel's mcp.client.session.duration).

// sessionEnds is what runs when the current session ends.
type sessionEnds struct {
	mu sync.Mutex
	fs []func(error)
}

// OnSessionEnd registers f, on an initialize request that succeeded, to run
// once when the session it started ends: with nil when the client closes,
// ErrSessionExpired when the server ended the session, or
// runtime.ErrConnectionLost when the connection (a server subprocess's
// pipes, say) ended on its own. f runs on a goroutine of the client's and
// must not block. On any other request it does nothing.
func (r *Request) OnSessionEnd(f func(err error)) {
	if r.Method != mcp.MethodInitialize || r.client == nil {
		return
	}
	e := &r.client.sessionEnds
	e.mu.Lock()
	e.fs = append(e.fs, f)
	e.mu.Unlock()
}

// endSession runs what was registered for the session that ends with err.
func (c *Client) endSession(err error) {
	e := &c.sessionEnds
	e.mu.Lock()
	fs := e.fs
	e.fs = nil
	e.mu.Unlock()
	for _, f := range fs {
		f(err)
	}
}

// connectionEnded ends the session when the connection ended while the
// client was not closing.
func (c *Client) connectionEnded() {
	if !c.closing.Load() {
		c.endSession(runtime.ErrConnectionLost)
	}
}
