package mcphttp

import (
	"sync"
	"time"

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
// stopped reading cannot hold the call that writes to it. The deadline is
// moved on only once half of it has passed, not at every event: a write
// gets between half of it and all of it.
const streamWriteTimeout = 30 * time.Second

// stream is one event stream of a session.
type stream struct {
	s    *session
	name string // set (with s.mu held too) when the stream starts

	mu    sync.Mutex
	conn  *conn // the connection the stream is written to; nil when none
	sse   bool  // an event stream (a POST stream may still be JSON)
	final bool  // the stream has ended: its last event is stored
	// sent is the id of the last event written on a connection, or of the
	// empty event that starts the stream; kept for the standalone stream,
	// whose new connections start after it (see catchUp).
	sent string
}

// Why a connection was released from its stream.
const (
	releaseDone   = iota + 1 // the stream ended
	releaseClosed            // mcpserver.CloseStream: the client will resume
	releaseGone              // the client went away, or a write failed
	releaseEnded             // the session ended, or the handler shut down
	releaseTaken             // a resume took the stream over
)

// prime stores and writes the stream's priming event: an id and empty data,
// with the retry interval, so the client can resume from the start (from
// 2025-11-25 on); st.mu held, st.conn set.
func (st *stream) prime() { st.sendPrime(true) }

// primeLate is prime without the flush, for a caller that writes an event
// right after it (the message that made a call's response an event stream)
// or soon (an Options.SSE call, which mostly answers at once): the two go
// out in one write. The spec wants the priming event sent first, and it is;
// should no event follow, keepAlive flushes it (or, before 2025-11-25, the
// headers) primeDelay later.
func (st *stream) primeLate() { st.sendPrime(false) }

// primeDelay bounds how long the headers of a 2026-07-28 Options.SSE
// response wait for the first event (modern.go), and a priming event
// written by primeLate for its flush, should no event follow it.
const primeDelay = 10 * time.Millisecond

func (st *stream) sendPrime(flush bool) {
	if !st.s.polling {
		if !flush {
			st.conn.pending = true // the headers, with the next event or primeDelay later
		} else if !st.conn.flush() { // the headers, at least
			st.detach(releaseGone)
		}
		return
	}
	if cn := st.conn; cn.lazy && st.s.h.mem != nil {
		// Its id is written by commit, and kept by no one else (sent is
		// the standalone stream's): no string is made for it.
		if seq, ok := st.s.appendSeq(st.name, nil); ok {
			cn.lazySeq, cn.pending = seq, true
		}
		return
	}
	id, ok := st.s.append(st.name, nil)
	if !ok {
		return
	}
	if cn := st.conn; cn.lazy {
		cn.lazyID, cn.pending, st.sent = id, true, id // written by commit
		return
	}
	bp := eventBufPool.Get().(*[]byte)
	b := sse.AppendEvent((*bp)[:0], sse.Event{ID: id, HasID: true, Retry: st.s.h.opts.RetryInterval})
	cn := st.conn
	if flush {
		ok = cn.write(b)
	} else {
		ok = cn.put(b)
		cn.pending = true
	}
	putEventBuf(bp, b)
	if !ok {
		st.detach(releaseGone)
		return
	}
	st.sent = id
}

// emit stores msg as the stream's next event and writes it if a connection
// is attached; st.mu held.
func (st *stream) emit(msg []byte) { st.send(msg, true) }

// emitLast is emit for the stream's last event, not flushed: the handler
// serving the connection returns as the stream ends, and net/http sends the
// event with the end of the response.
func (st *stream) emitLast(msg []byte) { st.send(msg, false) }

func (st *stream) send(msg []byte, flush bool) {
	if cn := st.conn; !flush && cn != nil && cn.lazy && st.s.h.mem != nil {
		// The headers, the priming event and msg in one write, the ids
		// written there (see sendPrime).
		seq, ok := st.s.appendSeq(st.name, msg)
		if ok && !cn.commitWith(commitLast, "", seq, msg) {
			st.detach(releaseGone)
		}
		return
	}
	id, ok := st.s.append(st.name, msg)
	if !ok || st.conn == nil {
		return
	}
	if !flush && st.conn.lazy {
		// The headers, the priming event and msg in one write.
		if !st.conn.commitWith(commitLast, id, 0, msg) {
			st.detach(releaseGone)
			return
		}
	} else if !st.conn.sendEvent(id, msg, flush) {
		st.detach(releaseGone)
		return
	}
	st.sent = id
}

// detach lets the stream's connection go; st.mu held. An inline
// connection's event stream released while its call goes on (a resume took
// it over, the session ended) is ended now (see conn.end); mcpserver.CloseStream
// ends it itself, before it detaches.
func (st *stream) detach(why int) {
	cn := st.conn
	if cn == nil {
		return
	}
	st.conn = nil
	cn.why = why
	if cn.lazy {
		// Done: the handler returns and the response ends with it;
		// otherwise it may have to end first (see end).
		if why == releaseDone {
			cn.commit(commitLast)
		} else {
			cn.commit(commitEarly)
		}
	}
	if cn.ka != nil {
		cn.ka.Stop()
	}
	if cn.primeArmed {
		cn.primeArmed = false
		st.s.h.primer.remove(cn)
	}
	if cn.inline && st.sse && (why == releaseTaken || why == releaseEnded) {
		cn.end()
	}
	cn.signal()
}

// keepAlive starts the keep-alive comments on the stream's connection cn,
// and flushes a priming event written by primeLate; st.mu held.
func (st *stream) keepAlive(cn *conn) {
	if cn == nil || st.conn != cn {
		return // the connection is already gone
	}
	every := st.s.h.opts.KeepAlive
	if every <= 0 && (!cn.lazy || !cn.pending) {
		if cn.pending && !cn.flush() {
			st.detach(releaseGone)
		}
		return // no keep-alives
	}
	if cn.pending && (every >= primeDelay || every <= 0) {
		// The priming event waits primeDelay in the handler's queue, then
		// the keep-alives start (see primed). With no keep-alives, only a
		// lazy connection's does (see commit): flushed now, it would be
		// committed before its call answers.
		if cn.primeArmed {
			return // queued already
		}
		cn.primeArmed = true
		st.s.h.primer.add(cn, st)
		return
	}
	first, early := every, cn.pending
	if early {
		first = min(every, primeDelay)
	}
	cn.ka = time.AfterFunc(first, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.conn != cn {
			return
		}
		var ok bool
		switch {
		case cn.pending:
			ok = cn.flush()
		case early:
			ok = true // the priming event went out with another
		default:
			ok = cn.write(keepAliveComment)
		}
		early = false
		if !ok {
			st.detach(releaseGone)
			return
		}
		cn.ka.Reset(every)
	})
}

// primed flushes the priming event written by primeLate on cn, unless an
// event took it out already, and starts the keep-alive comments: cn was
// queued by keepAlive primeDelay ago (primer.go).
func (st *stream) primed(cn *conn) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.conn != cn {
		return // the connection is already gone
	}
	cn.primeArmed = false
	if cn.pending && !cn.flush() {
		st.detach(releaseGone)
		return
	}
	st.keepAlive(cn) // the keep-alives, every KeepAlive from now
}

var keepAliveComment = sse.AppendComment(nil, "")
