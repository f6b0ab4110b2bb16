package mcphttp

import (
	"bytes"
	"context"
	"net/http"
	"slices"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/streamclose"
)

// call is a request (or batch) POSTed to a session, in flight. Its response
// goes back as JSON, unless the handler sends a notification first (or
// Options.SSE): then the POST's response becomes an event stream, whose
// events are stored so the client can resume it.
//
// On HTTP/1.x a call whose response is expected to stay JSON, or (with
// Options.SSE) to be an event stream of its answer alone, runs on the
// goroutine serving the POST (inline), so it costs no goroutine and no
// hand-off; a call whose response may become an event stream runs on a
// goroutine of its own, and the POST's goroutine waits for its response, so
// that the response can end before the call (mcpserver.CloseStream, a resume
// taking the stream over, the session ending) by returning the handler,
// the connection staying usable (inline.go says which calls run where). On
// HTTP/2 every call runs on its own goroutine. Either way the call's
// context does not end with the request: a client that goes away makes the
// writes fail, and the call goes on, its events stored for a resume. An
// inline call that streams all the same says Connection: close; an early
// end then takes its connection from net/http (Hijack), ends the chunked
// body and closes the connection while the call keeps running there.
type call struct {
	stream
	cctx  callContext // the call's context (see callContext); cctx.vals is the POST's, done when its client is gone
	done  bool        // Handle returned
	reply *[]byte     // what it returned, for a JSON response: a pooled buffer (replyBufs)
	first conn        // the POST's own connection
	key   []byte      // what an inline call is known by (streamKey)

	// body is the call's, handed to a worker (workers.go).
	body []byte
}

// callContext is a call's context: the values of its POST's context, and
// the life of its session, which cancels it when the session ends; not its
// POST's end (a call outlives its client, see call). The session's context
// is the one cancelable context the request's own (the runtime's, for
// notifications/cancelled) hangs under: a cancelable context per call
// between them cost its allocation, the runtime's registration under it
// (a map) and a cancellation.
type callContext struct {
	context.Context                 // the session's life: Deadline, Done, Err
	vals            context.Context // the POST's context: the values
	c               *call
}

// Value answers for mcpserver.CloseStream with the call (as
// mcpserver.WithStreamCloser would, without a context more), for the
// context package's own key from the session's life, which holds no other
// value, and for every other key from the POST's context.
func (cc *callContext) Value(key any) any {
	if _, ok := key.(streamclose.Key); ok {
		return streamclose.Closer(cc.c)
	}
	if v := cc.Context.Value(key); v != nil {
		return v
	}
	return cc.vals.Value(key)
}

// serveCall runs a request of the session and answers the POST with its
// response, as JSON or as an event stream.
func (s *session) serveCall(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	h := s.h
	if !h.enter() {
		writeBodyError(w, http.StatusServiceUnavailable, body, env.ID, runtime.CodeServerError, "Service Unavailable: the server is shutting down")
		return
	}
	c := &call{}
	c.s = s
	c.first.w = w
	c.conn = &c.first
	inline := h.runsInline(w, r, env)
	if inline {
		c.first.inline = true
		c.first.chunked = r.ProtoAtLeast(1, 1)
		c.key = streamKey(env)
		if h.opts.SSE {
			// Its headers wait for its answer, or for the first write
			// that must go before it (conn.commit).
			c.first.lazy, c.first.lazyCall = true, c
		}
	} else {
		c.first.wake = make(chan struct{}, 1)
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		h.exit()
		writeBodyError(w, http.StatusNotFound, body, env.ID, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
		return
	}
	if s.life == nil {
		s.life, s.endLife = context.WithCancel(context.Background())
	}
	c.cctx = callContext{Context: s.life, vals: r.Context(), c: c}
	s.calls = append(s.calls, c)
	s.activate()
	s.mu.Unlock()

	if h.opts.SSE {
		// The priming event goes out with the response when the call
		// answers at once, or on its own primeDelay or so later (primeLate);
		// inline, the headers wait with it (conn.commit).
		c.mu.Lock()
		c.startSSE(false)
		c.mu.Unlock()
	}
	ctx := &c.cctx // its Value holds c's CloseStream
	if inline {
		c.run(ctx, body)
		c.answer(&c.first)
		return
	}
	h.work.start(c, body)
	c.wait(r, &c.first)
}

// run handles the call and finishes it.
func (c *call) run(ctx context.Context, body []byte) {
	bp := replyBufs.Get().(*[]byte)
	reply := c.s.ss.HandleAppend(ctx, body, c.notify, (*bp)[:0])
	if rep := c.s.h.rep; rep != nil {
		rep.waitStored() // what the call changed is stored before its answer goes
	}
	c.mu.Lock()
	c.done = true
	if c.sse {
		if len(reply) > 0 {
			msg := reply
			if c.s.h.mem == nil {
				msg = bytes.Clone(reply) // the event store may keep it
			}
			c.emitLast(msg)
		} else if c.s.h.rep != nil {
			c.s.append(c.name, endMarker) // followers elsewhere: it ends here
		}
		putReplyBuf(bp, reply)
		c.final = true
		c.detach(releaseDone)
	} else {
		*bp = reply
		c.reply = bp // answer writes it and gives the buffer back
		if c.conn != nil {
			c.conn.signal()
		}
	}
	c.mu.Unlock()
	s := c.s
	s.mu.Lock()
	if i := slices.Index(s.calls, c); i >= 0 {
		s.calls = slices.Delete(s.calls, i, i+1) // keeps its array for the next call
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
		if c.conn == nil || c.cctx.vals.Err() != nil {
			// JSON response, client gone: nobody can resume it. A request
			// of the server, which the call waits on, goes on the standalone
			// stream instead, where the client can still find it.
			if isRequest(msg) {
				c.s.sendUnrelated(msg)
			}
			return
		}
		c.startSSE(false) // flushed with msg
	}
	c.emit(msg)
}

// startSSE turns the call's response into an event stream: it names the
// stream and writes the headers and the priming event, flushed now, or with
// the event the caller writes next when flush is false (see primeLate);
// c.mu held, c.conn set.
func (c *call) startSSE(flush bool) {
	c.sse = true
	c.s.nameStream(&c.stream)
	if !c.conn.lazy { // a lazy connection is opened by its first write (conn.commit)
		if c.conn.inline {
			c.s.h.noteStreamer(c.key) // its next calls run on their own goroutines
		}
		c.conn.open()
	}
	if flush {
		c.prime()
	} else {
		c.primeLate()
	}
	c.keepAlive(c.conn)
}

// CloseStream is the call's mcpserver.CloseStream: it ends the POST's response (an
// event stream from now on, so the client can resume it) while the call goes
// on. Revisions before 2025-11-25 have no polling: it does nothing there.
// Nor does it when the response cannot end before its handler returns: an
// inline call's connection that net/http does not let go (see call).
func (c *call) CloseStream() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || !c.s.polling {
		return false
	}
	if !c.sse {
		if c.conn == nil || c.cctx.vals.Err() != nil {
			return false
		}
		c.startSSE(true)
	}
	if cn := c.conn; cn != nil && cn.inline && !cn.end() {
		return false
	}
	c.detach(releaseClosed)
	return true
}

// wait serves the POST's connection, for a call on its own goroutine, until
// the call no longer needs it, then answers it (see answer).
func (c *call) wait(r *http.Request, cn *conn) {
	for !c.answer(cn) {
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
	}
}

// answer finishes the POST's response on cn once the call no longer needs
// it: the call's JSON response, or an error when the session ended first
// (an event stream was written as it went). It returns false while the call
// still needs cn.
func (c *call) answer(cn *conn) bool {
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
		return true
	}
	if !c.done || c.sse {
		c.mu.Unlock()
		return false
	}
	var reply []byte
	rbuf := c.reply
	if rbuf != nil {
		reply = *rbuf
	}
	c.conn, c.reply = nil, nil
	c.mu.Unlock()
	switch {
	case len(reply) > 0:
		writeJSON(cn.w, legacyStatus(reply), reply)
	case c.s.h.closing():
		writeError(cn.w, http.StatusServiceUnavailable, nil, runtime.CodeServerError, "Service Unavailable: the call was cancelled by a shutdown")
	default:
		cn.w.WriteHeader(http.StatusAccepted) // cancelled: no response
	}
	if rbuf != nil {
		putReplyBuf(rbuf, reply)
	}
	return true
}

// isRequest reports whether msg, a message the server sends, is a request
// (it waits for an answer) rather than a notification.
func isRequest(msg []byte) bool {
	var env envelope
	return env.Scan(msg) && env.Method != nil && env.ID != nil
}
