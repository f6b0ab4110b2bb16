package mcphttp

import (
	"context"
	"net/http"
	"slices"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// call is a request (or batch) POSTed to a session, in flight. Its response
// goes back as JSON, unless the handler sends a notification first (or
// Options.SSE): then the POST's response becomes an event stream, whose
// events are stored so the client can resume it.
type call struct {
	stream
	cancel context.CancelFunc
	done   bool   // Handle returned
	reply  []byte // what it returned, for a JSON response
	first  conn   // the POST's own connection
}

// serveCall runs a request of the session on its own goroutine and answers
// the POST with its response, as JSON or as an event stream.
func (s *session) serveCall(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	h := s.h
	if !h.enter() {
		writeError(w, http.StatusServiceUnavailable, env.id, runtime.CodeServerError, "Service Unavailable: the server is shutting down")
		return
	}
	c := &call{}
	c.s = s
	c.first.init(w)
	c.conn = &c.first
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	c.cancel = cancel
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		cancel()
		h.exit()
		writeError(w, http.StatusNotFound, env.id, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
		return
	}
	s.calls = append(s.calls, c)
	s.activate()
	s.mu.Unlock()

	c.mu.Lock()
	if h.opts.SSE {
		c.startSSE()
	}
	c.mu.Unlock()
	go c.run(mcp.WithStreamCloser(ctx, c.closeStream), body)
	c.wait(r, &c.first)
}

// run handles the call and finishes it.
func (c *call) run(ctx context.Context, body []byte) {
	reply := c.s.ss.Handle(ctx, body, c.notify)
	c.cancel()
	c.mu.Lock()
	c.done = true
	if c.sse {
		if len(reply) > 0 {
			c.emit(reply)
		}
		c.final = true
		c.detach(releaseDone)
	} else {
		c.reply = reply
		if c.conn != nil {
			c.conn.signal()
		}
	}
	c.mu.Unlock()
	s := c.s
	s.mu.Lock()
	if i := slices.Index(s.calls, c); i >= 0 {
		s.calls = slices.Delete(s.calls, i, i+1)
		if len(s.calls) == 0 {
			s.calls = nil
		}
		s.deactivate()
	}
	s.mu.Unlock()
	s.h.exit()
}

// notify sends a message of the call: it turns the response into an event
// stream first if it is not one yet.
func (c *call) notify(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sse {
		if c.conn == nil {
			return // JSON response, client gone: nobody can resume it
		}
		c.startSSE()
	}
	c.emit(msg)
}

// startSSE turns the call's response into an event stream: it names the
// stream, writes the headers and the priming event; c.mu held, c.conn set.
func (c *call) startSSE() {
	c.sse = true
	c.s.nameStream(&c.stream)
	c.conn.open()
	c.prime()
	c.keepAlive(c.conn)
}

// closeStream is the call's mcp.CloseStream: it ends the POST's response (an
// event stream from now on, so the client can resume it) while the call goes
// on. Revisions before 2025-11-25 have no polling: it does nothing there.
func (c *call) closeStream() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || !c.s.polling {
		return false
	}
	if !c.sse {
		if c.conn == nil {
			return false
		}
		c.startSSE()
	}
	c.detach(releaseClosed)
	return true
}

// wait serves the POST's connection until the call no longer needs it, then
// writes the JSON response if that is how the call is answered.
func (c *call) wait(r *http.Request, cn *conn) {
	for {
		select {
		case <-cn.wake:
		case <-r.Context().Done():
			c.mu.Lock()
			if c.conn == cn {
				c.detach(releaseGone)
			}
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		if c.conn != cn {
			why, sse := cn.why, c.sse
			c.mu.Unlock()
			switch {
			case sse || why != releaseEnded:
			case c.s.h.closing():
				writeError(cn.w, http.StatusServiceUnavailable, nil, runtime.CodeServerError, "Service Unavailable: the server is shutting down")
			default:
				writeError(cn.w, http.StatusNotFound, nil, runtime.CodeInvalidRequest, "Not Found: the session ended")
			}
			return
		}
		if c.done && !c.sse {
			reply := c.reply
			c.conn = nil
			c.mu.Unlock()
			switch {
			case len(reply) > 0:
				writeJSON(cn.w, legacyStatus(reply), reply)
			case c.s.h.closing():
				writeError(cn.w, http.StatusServiceUnavailable, nil, runtime.CodeServerError, "Service Unavailable: the call was cancelled by a shutdown")
			default:
				cn.w.WriteHeader(http.StatusAccepted) // cancelled: no response
			}
			return
		}
		c.mu.Unlock()
	}
}
