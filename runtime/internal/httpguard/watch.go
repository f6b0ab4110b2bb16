package httpguard

import (
	"errors"
	"net/http"
	"os"
	"sync"
	"time"
)

// BodyWatch reads request bodies as ReadBody does, within a deadline, but
// without setting and clearing a read deadline on the connection for each
// body: that cost two updates of the network poller's timers per request
// (and ReadBody's ResponseController). The bodies being read wait in one
// queue instead, in the order they began, watched by one timer; only a body
// still being read when its timeout has passed gets a read deadline, one in
// the past, which ends its read at once (ErrBodyTimeout, and the connection
// is closed, as with ReadBody).
//
// The watch keeps its own coarse clock, so that a body costs no clock
// read: while bodies are being read, or were since its last tick, the timer
// ticks every step (a fraction of the timeout, at most a quarter of a
// second), and a body is stamped with the ticks counted when it began. A
// body is cut at the first tick more than a timeout after it began: between
// its timeout and its timeout plus two steps (one step when the timeout is a
// whole number of them, as the default and any whole number of seconds are).
// Once no body has come for a step, the timer rests and holds no goroutine;
// the next body starts it again.
//
// Under an http.Server with a ReadTimeout, BodyWatch.ReadBody is ReadBody:
// net/http's own deadline for the request is then set on the connection,
// and ReadBody replaces it for the body and clears it after, so that it does
// not end the call that follows.
//
// The zero BodyWatch has DefaultBodyTimeout; SetTimeout changes it before
// use. Its methods are safe for concurrent use.
type BodyWatch struct {
	timeout time.Duration // 0: DefaultBodyTimeout; negative: no deadline

	mu         sync.Mutex
	head, tail *bodyRead
	timer      *time.Timer
	ticks      uint64 // the watch's clock: its timer's ticks, and its starts after a rest
	armed      bool   // timer is set to fire
	used       bool   // a body was queued since the timer last fired
}

// bodyRead is a body being read, queued in a BodyWatch.
type bodyRead struct {
	w          http.ResponseWriter
	began      uint64 // the watch's ticks when the read began
	prev, next *bodyRead
	queued     bool // in the queue
	expired    bool // its deadline was set: the read fails, or has already ended
}

var bodyReads = sync.Pool{New: func() any { return new(bodyRead) }}

// SetTimeout sets how long a body may take to arrive: 0 means
// DefaultBodyTimeout, a negative timeout no deadline. Call it before the
// first ReadBody.
func (bw *BodyWatch) SetTimeout(timeout time.Duration) { bw.timeout = timeout }

// ReadBody reads r's body as the function ReadBody does (at most limit
// bytes, within the watch's timeout, never later than the http.Server's
// ReadTimeout would allow). The returned slice belongs to the caller.
func (bw *BodyWatch) ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	if r.Body == nil || r.Body == http.NoBody {
		return []byte{}, nil
	}
	timeout := bw.timeout
	if timeout == 0 {
		timeout = DefaultBodyTimeout
	}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
		return ReadBody(w, r, limit, timeout)
	}
	if timeout < 0 {
		return read(limited(w, r, limit), r.ContentLength)
	}
	br := bw.add(w)
	b, err := read(limited(w, r, limit), r.ContentLength)
	expired := bw.remove(br)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline stays: what net/http reads of the body after the
		// handler fails at once, and the connection is closed.
		err = errors.Join(ErrBodyTimeout, err)
	case expired:
		// The read ended as its deadline was set: the call may go on.
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	return b, err
}

// add queues a body being read through w.
func (bw *BodyWatch) add(w http.ResponseWriter) *bodyRead {
	br := bodyReads.Get().(*bodyRead)
	br.w = w
	bw.mu.Lock()
	if !bw.armed {
		// The clock starts again: a tick begins now.
		bw.armed = true
		bw.ticks++
		step, _ := bw.clock()
		if bw.timer == nil {
			bw.timer = time.AfterFunc(step, bw.fire)
		} else {
			bw.timer.Reset(step)
		}
	}
	br.began = bw.ticks
	br.queued = true
	br.prev = bw.tail
	if bw.tail != nil {
		bw.tail.next = br
	} else {
		bw.head = br
	}
	bw.tail = br
	bw.used = true
	bw.mu.Unlock()
	return br
}

// clock returns the watch's step, and the number of whole steps past which
// a body has been read for longer than the timeout: a body that began
// within tick k has been read for more than n steps at tick k+n+1, since
// ticks are at least a step apart.
func (bw *BodyWatch) clock() (step time.Duration, n uint64) {
	timeout := bw.timeout
	if timeout == 0 {
		timeout = DefaultBodyTimeout
	}
	step = max(min(timeout/minSteps, maxStep), 1)
	return step, uint64((timeout + step - 1) / step)
}

// A BodyWatch ticks at least minSteps times per timeout and at least every
// maxStep: a body is cut at most two steps after its timeout.
const (
	minSteps = 8
	maxStep  = 250 * time.Millisecond
)

// remove takes br out of the queue once its read has ended, and reports
// whether its deadline was set meanwhile.
func (bw *BodyWatch) remove(br *bodyRead) bool {
	bw.mu.Lock()
	if br.queued {
		bw.unlink(br)
	}
	expired := br.expired
	bw.mu.Unlock()
	*br = bodyRead{}
	bodyReads.Put(br)
	return expired
}

// unlink takes br, queued, out of the queue; bw.mu held.
func (bw *BodyWatch) unlink(br *bodyRead) {
	if br.prev != nil {
		br.prev.next = br.next
	} else {
		bw.head = br.next
	}
	if br.next != nil {
		br.next.prev = br.prev
	} else {
		bw.tail = br.prev
	}
	br.prev, br.next, br.queued = nil, nil, false
}

// fire is a tick: it cuts the reads that have gone on for longer than the
// timeout, and sets the timer again while reads are queued or came since
// the last tick; otherwise the timer rests until the next read.
func (bw *BodyWatch) fire() {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	bw.ticks++
	step, n := bw.clock()
	var past time.Time
	for bw.head != nil && bw.ticks-bw.head.began > n {
		br := bw.head
		bw.unlink(br)
		br.expired = true
		if past.IsZero() {
			past = time.Now()
		}
		// Unsupported (a ResponseWriter that is not net/http's): the read
		// goes on, as ReadBody's would without a deadline.
		_ = http.NewResponseController(br.w).SetReadDeadline(past)
	}
	if bw.head != nil || bw.used {
		bw.used = false
		bw.timer.Reset(step)
		return
	}
	bw.armed = false
}
