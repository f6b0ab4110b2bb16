package mcphttp

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// The 2024-11-05 HTTP+SSE transport. A client opens an event stream with a
// GET; the server's first event, "endpoint", names the URL the client POSTs
// its messages to: this handler's own path with a sessionId query parameter.
// Each POST is answered 202 at once, and the replies and notifications of
// the messages go on the stream as "message" events. The session lives as
// long as the stream: when the GET ends, so does the session, and its calls
// in flight are cancelled.
//
// The spec fixes only the two endpoints and the two event types; the
// sessionId query parameter, the 202 with body "Accepted" and the 400/404
// statuses follow the reference TypeScript SDK, which clients expect.

const (
	// legacyMaxCalls bounds the calls in flight in one HTTP+SSE session; a
	// POST beyond it gets 429.
	legacyMaxCalls = 256
	// legacyWriteTimeout bounds each write on a stream, so a client that has
	// stopped reading cannot hold a goroutine for good.
	legacyWriteTimeout = time.Minute
	// legacyDrainTimeout bounds the last writes on a stream whose session is
	// ending (the replies of calls that finished during a shutdown).
	legacyDrainTimeout = 5 * time.Second
)

// sseLegacy serves the HTTP+SSE sessions of a Handler.
type sseLegacy struct {
	h *Handler

	mu       sync.Mutex
	sessions map[string]*sseSession
	closed   bool          // shutdown began: no new sessions
	calls    int           // calls in flight, in every session
	idle     chan struct{} // closed when calls drops to 0 during shutdown
	streams  sync.WaitGroup
}

// sseSession is one HTTP+SSE session: an MCP session and the queue of
// messages its stream writes.
type sseSession struct {
	id      string
	subject string // the token subject that opened it
	logger  *slog.Logger
	ss      *mcpserver.Session
	ctx     context.Context // the session's life; ends with its stream
	cancel  context.CancelFunc

	l  *sseLegacy
	rc *http.ResponseController // the stream's; set before the session is known

	mu        sync.Mutex
	queue     [][]byte // messages waiting for the stream, in order
	buffered  int      // bytes queued or being written (see legacyoutput.go)
	ended     bool     // nothing more is queued
	condemned bool     // ended for good: its stream is cut, nothing drained
	done      bool     // serveGET has returned: rc is not to be used
	calls     int      // calls in flight
	wake      chan struct{}
}

func newSSELegacy(h *Handler) *sseLegacy {
	return &sseLegacy{h: h, sessions: make(map[string]*sseSession)}
}

// count returns the number of live HTTP+SSE sessions.
func (l *sseLegacy) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sessions)
}

// serveGET opens a session and serves its event stream until the client goes
// away or the handler shuts down.
func (l *sseLegacy) serveGET(w http.ResponseWriter, r *http.Request) {
	if !acceptsEventStream(r.Header.Values("Accept")) {
		writeError(w, http.StatusNotAcceptable, nil, runtime.CodeInvalidRequest,
			"Not Acceptable: the client must accept text/event-stream")
		return
	}
	if l.h.closing() || !l.h.reserveSession() {
		writeError(w, http.StatusServiceUnavailable, nil, runtime.CodeServerError,
			"Service Unavailable: no new session can be opened now")
		return
	}
	defer l.h.releaseSession()

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	ss, ctl := l.h.srv.NewTransportSession()
	sess := &sseSession{
		id:      newSessionID(),
		subject: tokenSubject(r),
		logger:  l.h.logger,
		ss:      ss,
		ctx:     ctx,
		cancel:  cancel,
		wake:    make(chan struct{}, 1),
		l:       l,
		rc:      http.NewResponseController(w),
	}
	// Messages unrelated to a request (resources/updated, list_changed) go
	// on the stream too.
	ctl.SetOutbound(sess.send)
	ctl.SetID(sess.id)
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, nil, runtime.CodeServerError,
			"Service Unavailable: the server is shutting down")
		return
	}
	l.sessions[sess.id] = sess
	l.streams.Add(1)
	l.mu.Unlock()
	defer l.streams.Done()
	defer l.end(sess)

	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	hdr.Del("Content-Length")
	w.WriteHeader(http.StatusOK)

	rc := sess.rc
	// The stream outlives any http.Server ReadTimeout (which would end the
	// request's context) and WriteTimeout: each write gets its own deadline
	// instead, and none is left behind for the connection's next request.
	_ = rc.SetReadDeadline(time.Time{})
	defer sess.streamEnded()
	buf := sse.AppendEvent(make([]byte, 0, 512), sse.Event{
		Type: "endpoint",
		Data: endpointPath(r) + "?sessionId=" + url.QueryEscape(sess.id),
	})
	if !l.write(sess, w, buf, legacyWriteTimeout) {
		return
	}
	l.h.logger.Debug("mcphttp: HTTP+SSE session opened", "session", sess.id)

	var tick <-chan time.Time
	if ka := l.h.opts.KeepAlive; ka > 0 {
		t := time.NewTicker(ka)
		defer t.Stop()
		tick = t.C
	}
	var batch [][]byte
	for {
		select {
		case <-ctx.Done():
			// The client went away, or the session was ended (a shutdown):
			// write what is left, in case the client is still there; unless
			// the session was condemned (its client does not read).
			var n int
			batch, n = sess.take(batch[:0])
			if !sess.isCondemned() {
				l.write(sess, w, appendMessages(buf[:0], batch), legacyDrainTimeout)
			}
			clear(batch)
			sess.written(n)
			return
		case <-sess.wake:
			var n int
			batch, n = sess.take(batch[:0])
			buf = appendMessages(buf[:0], batch)
			clear(batch) // the encoded copy in buf is what is left
			ok := l.write(sess, w, buf, legacyWriteTimeout)
			sess.written(n)
			if !ok {
				return
			}
		case <-tick:
			if !l.write(sess, w, sse.AppendComment(buf[:0], ""), legacyWriteTimeout) {
				return
			}
		}
		if cap(buf) > 1<<20 {
			buf = make([]byte, 0, 512) // let one big message's buffer go
		}
	}
}

// write writes b on sess's stream and flushes it, within timeout; it
// reports whether that worked. A condemned session's stream writes nothing:
// its deadline is set under sess.mu, which condemn holds to cut the stream.
func (l *sseLegacy) write(sess *sseSession, w http.ResponseWriter, b []byte, timeout time.Duration) bool {
	sess.mu.Lock()
	if sess.condemned {
		sess.mu.Unlock()
		return false
	}
	// Ignored when unsupported: the write then has no deadline.
	_ = sess.rc.SetWriteDeadline(time.Now().Add(timeout))
	sess.mu.Unlock()
	if len(b) > 0 {
		if _, err := w.Write(b); err != nil {
			l.h.logger.Debug("mcphttp: write HTTP+SSE stream", "err", err)
			return false
		}
	}
	if err := sess.rc.Flush(); err != nil {
		l.h.logger.Debug("mcphttp: flush HTTP+SSE stream", "err", err)
		return false
	}
	return true
}

// appendMessages appends each message as a "message" event.
func appendMessages(b []byte, msgs [][]byte) []byte {
	for _, m := range msgs {
		b = sse.AppendEvent(b, sse.Event{Type: "message", Data: string(m)})
	}
	return b
}

// shutdown stops new sessions, lets the calls in flight finish (until ctx
// ends) so their replies reach the streams, then ends every session and
// waits (until ctx ends) for their streams to close.
func (l *sseLegacy) shutdown(ctx context.Context) {
	l.mu.Lock()
	l.closed = true
	var idle chan struct{}
	if l.calls > 0 {
		if l.idle == nil {
			l.idle = make(chan struct{})
		}
		idle = l.idle
	}
	l.mu.Unlock()
	if idle != nil {
		select {
		case <-idle:
		case <-ctx.Done():
		}
	}
	l.mu.Lock()
	for _, sess := range l.sessions {
		sess.cancel()
	}
	l.mu.Unlock()
	streamsDone := make(chan struct{})
	go func() {
		l.streams.Wait()
		close(streamsDone)
	}()
	select {
	case <-streamsDone:
	case <-ctx.Done():
	}
}

// endpointPath returns the path the client requested, as it sent it, so the
// endpoint event names this handler wherever it is mounted (even behind
// http.StripPrefix, which rewrites r.URL but not r.RequestURI).
func endpointPath(r *http.Request) string {
	p := r.URL.EscapedPath()
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.EscapedPath() != "" {
		p = u.EscapedPath()
	}
	switch {
	case p == "":
		return "/"
	case strings.HasPrefix(p, "//"):
		// "//host/x" would be a network-path reference sending the client's
		// messages to another host; "/.//host/x" names the same path here.
		return "/." + p
	}
	return p
}
