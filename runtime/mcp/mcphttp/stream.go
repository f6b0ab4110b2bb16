package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// A legacy session's event streams. Every event of a stream is stored (in
// the EventStore) before it is written, under the stream's lock, so the
// events a client missed when its connection broke can be replayed exactly
// once: a resume replays what came after the client's Last-Event-ID and then
// takes the stream over, all under that lock. A stream outlives its
// connections: a POST stream lasts until its call's response, the standalone
// stream as long as the session.

// streamWriteTimeout bounds one write on a stream, so that a client that
// stopped reading cannot hold the call that writes to it.
const streamWriteTimeout = 30 * time.Second

// stream is one event stream of a session.
type stream struct {
	s    *session
	name string // set (with s.mu held too) when the stream starts

	mu    sync.Mutex
	conn  *conn // the connection the stream is written to; nil when none
	sse   bool  // an event stream (a POST stream may still be JSON)
	final bool  // the stream has ended: its last event is stored
}

// Why a connection was released from its stream.
const (
	releaseDone   = iota + 1 // the stream ended
	releaseClosed            // mcp.CloseStream: the client will resume
	releaseGone              // the client went away, or a write failed
	releaseEnded             // the session ended, or the handler shut down
	releaseTaken             // a resume took the stream over
)

// conn is one HTTP response a stream is written to. The goroutine serving
// the HTTP request waits on wake and returns once the stream let it go.
type conn struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	wake chan struct{}
	why  int         // why it was released
	ka   *time.Timer // keep-alive comments
}

func newConn(w http.ResponseWriter) *conn {
	cn := &conn{}
	cn.init(w)
	return cn
}

func (cn *conn) init(w http.ResponseWriter) {
	cn.w = w
	cn.wake = make(chan struct{}, 1)
}

// signal wakes the goroutine serving the connection.
func (cn *conn) signal() {
	select {
	case cn.wake <- struct{}{}:
	default:
	}
}

// open writes the headers of an event stream.
func (cn *conn) open() {
	hdr := cn.w.Header()
	hdr["Content-Type"] = valEventStream
	hdr["Cache-Control"] = valNoCache
	hdr["X-Accel-Buffering"] = valNo
	delete(hdr, "Content-Length")
	cn.w.WriteHeader(http.StatusOK)
	if cn.rc == nil {
		cn.rc = http.NewResponseController(cn.w)
	}
}

// write writes b and flushes it; false when the client is gone.
func (cn *conn) write(b []byte) bool {
	_ = cn.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) // unsupported: no deadline
	if _, err := cn.w.Write(b); err != nil {
		return false
	}
	return cn.rc.Flush() == nil
}

// writeEvent writes msg as an event, with id unless it is "".
func (cn *conn) writeEvent(id string, msg []byte) bool {
	bp := eventBufPool.Get().(*[]byte)
	b := appendEvent((*bp)[:0], id, msg)
	ok := cn.write(b)
	putEventBuf(bp, b)
	return ok
}

var eventBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func putEventBuf(bp *[]byte, b []byte) {
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		eventBufPool.Put(bp)
	}
}

// appendEvent appends msg as an SSE event with the given id ("" for none).
// A JSON message has line breaks only as white space, almost never: it then
// takes one data line, written here without a copy.
func appendEvent(b []byte, id string, msg []byte) []byte {
	if bytes.IndexByte(msg, '\n') >= 0 || bytes.IndexByte(msg, '\r') >= 0 || len(msg) == 0 {
		return sse.AppendEvent(b, sse.Event{ID: id, HasID: id != "", Data: string(msg)})
	}
	if id != "" {
		b = append(b, "id: "...)
		b = append(b, id...)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}

// prime stores and writes the stream's priming event: an id and empty data,
// with the retry interval, so the client can resume from the start (from
// 2025-11-25 on); st.mu held, st.conn set.
func (st *stream) prime() {
	if !st.s.polling {
		return
	}
	retry := st.s.h.opts.RetryInterval
	id, ok := st.s.append(st.name, nil)
	if !ok {
		return
	}
	b := sse.AppendEvent(make([]byte, 0, 64), sse.Event{ID: id, HasID: true, Retry: retry})
	if !st.conn.write(b) {
		st.detach(releaseGone)
	}
}

// emit stores msg as the stream's next event and writes it if a connection
// is attached; st.mu held.
func (st *stream) emit(msg []byte) {
	id, ok := st.s.append(st.name, msg)
	if !ok || st.conn == nil {
		return
	}
	if !st.conn.writeEvent(id, msg) {
		st.detach(releaseGone)
	}
}

// detach lets the stream's connection go; st.mu held.
func (st *stream) detach(why int) {
	cn := st.conn
	if cn == nil {
		return
	}
	st.conn = nil
	cn.why = why
	if cn.ka != nil {
		cn.ka.Stop()
	}
	cn.signal()
}

// keepAlive starts the keep-alive comments on the stream's connection cn;
// st.mu held.
func (st *stream) keepAlive(cn *conn) {
	every := st.s.h.opts.KeepAlive
	if every <= 0 || cn == nil || st.conn != cn {
		return // no keep-alives, or the connection is already gone
	}
	cn.ka = time.AfterFunc(every, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.conn != cn {
			return
		}
		if !cn.write(keepAliveComment) {
			st.detach(releaseGone)
			return
		}
		cn.ka.Reset(every)
	})
}

var keepAliveComment = sse.AppendComment(nil, "")

// resume serves a GET with Last-Event-ID: the events of that stream stored
// after it, then, if the stream is still going, the stream itself.
func (s *session) resume(w http.ResponseWriter, r *http.Request, lastID string) {
	var events []storedEvent
	collect := func(id string, msg []byte) error {
		events = append(events, storedEvent{id, msg})
		return nil
	}
	ctx := context.WithoutCancel(r.Context())
	name, err := s.h.store.Replay(ctx, s.id, lastID, collect)
	if err != nil {
		if errors.Is(err, ErrUnknownEvent) {
			writeError(w, http.StatusBadRequest, nil, runtime.CodeInvalidRequest,
				"Bad Request: unknown Last-Event-ID "+strconv.Quote(lastID)+"; the stream cannot be resumed")
			return
		}
		s.h.logger.Warn("mcphttp: replay events", "session", s.id, "err", err)
		writeError(w, http.StatusInternalServerError, nil, runtime.CodeInternalError, "Internal Server Error: cannot replay the stream")
		return
	}
	cn := newConn(w)
	st := s.findStream(name)
	if st == nil {
		// The stream has ended: everything it had to say is stored.
		cn.open()
		cn.write(appendEvents(s.h.opts.RetryInterval, events))
		return
	}
	st.mu.Lock()
	// Events stored since the replay above: none can be added while st.mu
	// is held.
	from := lastID
	if len(events) > 0 {
		from = events[len(events)-1].id
	}
	if _, err := s.h.store.Replay(ctx, s.id, from, collect); err != nil {
		s.h.logger.Warn("mcphttp: replay events", "session", s.id, "err", err)
	}
	cn.open()
	if !cn.write(appendEvents(s.h.opts.RetryInterval, events)) || st.final {
		st.mu.Unlock()
		return
	}
	st.detach(releaseTaken)
	st.conn = cn
	st.keepAlive(cn)
	st.mu.Unlock()
	s.serveStream(r, st, cn)
}

type storedEvent struct {
	id  string
	msg []byte
}

// appendEvents encodes the retry interval and the events of a replay.
func appendEvents(retry time.Duration, events []storedEvent) []byte {
	// The retry field alone, in a block that dispatches no event.
	b := append(make([]byte, 0, 256), "retry: "...)
	b = strconv.AppendInt(b, int64((retry+time.Millisecond-1)/time.Millisecond), 10)
	b = append(b, "\n\n"...)
	for _, e := range events {
		b = appendEvent(b, e.id, e.msg)
	}
	return b
}
