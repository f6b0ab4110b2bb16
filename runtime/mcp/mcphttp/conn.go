package mcphttp

import (
	"bytes"
	"net/http"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// The HTTP response a stream is written to: its headers (at once, or held
// for an inline call until its first write), its buffered writes and write
// deadlines, the end of a response that must end before its handler, and
// the event encoding.

// conn is one HTTP response a stream is written to. The goroutine serving
// the HTTP request waits on wake and returns once the stream let it go;
// unless the connection is inline: its goroutine runs the stream's call
// itself, and the response is ended, when it must end first, by taking the
// connection from net/http (see end).
type conn struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	wake    chan struct{} // nil for an inline connection
	why     int           // why it was released
	inline  bool          // the goroutine serving it runs the call (HTTP/1.x)
	chunked bool          // an inline connection's body is chunked (HTTP/1.1)
	pending bool          // a priming event waits for its flush (primeLate)
	// The flags below are with those above, in one word, so that a call
	// (which holds a conn) fits in the 352-byte size class.
	primeArmed  bool        // see primePrev
	primeQueued bool        // see primePrev
	lazy        bool        // see lazyID
	ka          *time.Timer // keep-alive comments
	until       time.Time   // the write deadline set last
	held        int         // bytes written since the last flush (see put)
	// In the queue of the priming events waiting for their flush
	// (primer.go): primeArmed is the owner's (under its lock), the rest
	// (primeQueued too) the queue's.
	primePrev, primeNext *conn
	primeDue             time.Time
	primeOwner           primeOwner
	// An inline Options.SSE response (see commit): lazy while its headers
	// and priming event (lazyID, "" for none, or lazySeq, its sequence
	// number in Handler.mem, 0 for none) are not written yet;
	// lazyCall is its call (its handler and streamKey).
	lazyID   string
	lazySeq  uint64
	lazyCall *call
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

// open writes the headers of an event stream. The stream of an inline
// connection (a call expected to answer JSON that streams all the same, see
// inline.go) may end before its call does, and then ends the response by
// closing the connection (see end): it says Connection: close from the
// start, so that no client keeps the connection for a request of its own
// and sees it fail.
func (cn *conn) open() { cn.openHeaders(cn.inline) }

func (cn *conn) openHeaders(close bool) {
	hdr := cn.w.Header()
	hdr["Content-Type"] = httpwire.ValEventStream
	hdr["Cache-Control"] = valNoCache
	hdr["X-Accel-Buffering"] = valNo
	if close {
		hdr["Connection"] = valClose
	}
	delete(hdr, "Content-Length")
	cn.w.WriteHeader(http.StatusOK)
}

// What makes a lazy connection write its headers (conn.commit).
const (
	commitLast   = iota + 1 // the call's answer: the response ends with its handler
	commitStream            // a message of the call, or CloseStream: the call streams
	commitEarly             // the priming event's flush, a resume, the session's end
)

// commit writes the headers and the priming event of a lazy connection:
// the event stream of an Options.SSE call run inline (inline.go), whose
// headers wait for its first write. Written with the call's answer
// (commitLast: the handler returns as the response ends), they are an
// event stream's, and the connection stays usable; written before, the
// response may have to end before its call, by closing the connection
// (see end): they say Connection: close, and the call's method or tool
// runs its later calls on their own goroutines, for good when the call
// streams (noteStreamer), its next slowRuns calls otherwise (noteSlow).
// The stream's mu held.
func (cn *conn) commit(why int) bool { return cn.commitWith(why, "", 0, nil) }

// commitWith is commit, writing msg (when not nil) after the priming
// event, in the same write: the call's answer (commitLast), its id id, or
// when seq is not 0 the one of its sequence number in Handler.mem.
func (cn *conn) commitWith(why int, id string, seq uint64, msg []byte) bool {
	cn.lazy = false
	switch why {
	case commitStream:
		cn.lazyCall.s.h.noteStreamer(cn.lazyCall.key)
	case commitEarly:
		cn.lazyCall.s.h.noteSlow(cn.lazyCall.key)
	}
	cn.openHeaders(why != commitLast)
	if cn.lazyID == "" && cn.lazySeq == 0 && msg == nil {
		return true
	}
	bp := eventBufPool.Get().(*[]byte)
	b := (*bp)[:0]
	if cn.lazySeq != 0 {
		var idb [48]byte
		pid := string(appendEventID(idb[:0], cn.lazyCall.name, cn.lazySeq))
		b = sse.AppendEvent(b, sse.Event{ID: pid, HasID: true, Retry: cn.lazyCall.s.h.opts.RetryInterval})
		cn.lazySeq = 0
	}
	if cn.lazyID != "" {
		b = sse.AppendEvent(b, sse.Event{ID: cn.lazyID, HasID: true, Retry: cn.lazyCall.s.h.opts.RetryInterval})
		cn.lazyID = ""
	}
	if msg != nil {
		if seq != 0 {
			var idb [48]byte
			id = string(appendEventID(idb[:0], cn.lazyCall.name, seq))
		}
		b = appendEvent(b, id, msg)
	}
	ok := cn.put(b)
	putEventBuf(bp, b)
	return ok
}

// ctl returns the response's controller, made when first needed (a
// response written at once and ended by its handler needs none).
func (cn *conn) ctl() *http.ResponseController {
	if cn.rc == nil {
		cn.rc = http.NewResponseController(cn.w)
	}
	return cn.rc
}

// write writes b and flushes it; false when the client is gone.
func (cn *conn) write(b []byte) bool {
	return cn.put(b) && cn.flush()
}

// flush sends what was written.
func (cn *conn) flush() bool {
	if cn.lazy && !cn.commit(commitEarly) { // the priming event alone
		return false
	}
	cn.pending = false
	cn.held = 0
	cn.deadline()
	return cn.ctl().Flush() == nil
}

// put writes b without flushing it: for the last event of a response, which
// goes out with the end of the response when its handler returns.
func (cn *conn) put(b []byte) bool {
	if cn.lazy && !cn.commit(commitStream) {
		return false
	}
	if cn.held += len(b); cn.held > heldMax {
		cn.deadline() // the write may reach the client
	}
	_, err := cn.w.Write(b)
	return err == nil
}

// heldMax is how much a response can be written without a flush and stay
// in net/http's buffer (2 KiB on HTTP/1.x, 4 KiB on HTTP/2): such writes
// need no deadline. The last of them go out when the handler returns, as a
// JSON response (writeJSON) does.
const heldMax = 2048

// deadline moves the write deadline on, for a write to the client: it is
// set anew only once half of it has passed.
func (cn *conn) deadline() {
	if now := time.Now(); cn.until.Sub(now) < streamWriteTimeout/2 {
		cn.until = now.Add(streamWriteTimeout)
		_ = cn.ctl().SetWriteDeadline(cn.until) // unsupported: no deadline
	}
}

// writeEvent writes msg as an event, with id unless it is "".
func (cn *conn) writeEvent(id string, msg []byte) bool {
	return cn.sendEvent(id, msg, true)
}

func (cn *conn) sendEvent(id string, msg []byte, flush bool) bool {
	bp := eventBufPool.Get().(*[]byte)
	b := appendEvent((*bp)[:0], id, msg)
	var ok bool
	if flush {
		ok = cn.write(b)
	} else {
		ok = cn.put(b)
	}
	putEventBuf(bp, b)
	return ok
}

// lastChunk ends a chunked HTTP/1.1 body (with no trailers).
var lastChunk = []byte("0\r\n\r\n")

// endWriteTimeout bounds the write of lastChunk on a taken connection.
const endWriteTimeout = 5 * time.Second

// end ends the response of an inline connection while its goroutine goes on
// running the call: it flushes what was written, takes the connection from
// net/http (which ignores a hijacked response when the handler returns),
// ends the chunked body, so the client sees a complete response, and closes
// the connection. It is false, and the response goes on, when net/http does
// not let the connection go. cn's stream's mu held: nothing else writes to
// the response meanwhile.
func (cn *conn) end() bool {
	if cn.lazy {
		cn.commit(commitStream) // CloseStream (detach commits first)
	}
	rc := cn.ctl()
	_ = rc.Flush() // a client already gone: the connection is closed all the same
	nc, _, err := rc.Hijack()
	if err != nil {
		return false
	}
	if cn.chunked {
		_ = nc.SetWriteDeadline(time.Now().Add(endWriteTimeout))
		_, _ = nc.Write(lastChunk)
	}
	_ = nc.Close()
	return true
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
