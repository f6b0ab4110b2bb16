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
// queue instead, in the order they are due (they all have the watch's
// timeout), watched by one timer; only a body still being read when it falls
// due gets a read deadline, one in the past, which ends its read at once
// (ErrBodyTimeout, and the connection is closed, as with ReadBody). The
// timer stays armed one timeout past the last body it saw, so a handler
// under load does not re-arm it per request; it holds no goroutine while it
// waits. A body is cut between its timeout and the time its queue's timer
// fires next (at most one timeout later, and mostly at once: the timer is
// re-armed for the queue's first body).
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
	armed      bool // timer is set to fire
	used       bool // a body was queued since the timer was last set
}

// bodyRead is a body being read, queued in a BodyWatch.
type bodyRead struct {
	w          http.ResponseWriter
	due        time.Time
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
	br := bw.add(w, timeout)
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

// add queues a body being read through w, due timeout from now.
func (bw *BodyWatch) add(w http.ResponseWriter, timeout time.Duration) *bodyRead {
	br := bodyReads.Get().(*bodyRead)
	br.w = w
	br.due = time.Now().Add(timeout)
	bw.mu.Lock()
	br.queued = true
	br.prev = bw.tail
	if bw.tail != nil {
		bw.tail.next = br
	} else {
		bw.head = br
	}
	bw.tail = br
	bw.used = true
	if !bw.armed {
		// Any body queued from now on is due no earlier than the timer.
		bw.armed = true
		if bw.timer == nil {
			bw.timer = time.AfterFunc(timeout, bw.fire)
		} else {
			bw.timer.Reset(timeout)
		}
	}
	bw.mu.Unlock()
	return br
}

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

// fire cuts the reads that are due, and sets the timer again: for the
// first read still queued, or, when reads came since it was last set, one
// timeout on (any read queued after that is due later); otherwise it rests
// until the next read.
func (bw *BodyWatch) fire() {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	now := time.Now()
	for bw.head != nil && !bw.head.due.After(now) {
		br := bw.head
		bw.unlink(br)
		br.expired = true
		// Unsupported (a ResponseWriter that is not net/http's): the read
		// goes on, as ReadBody's would without a deadline.
		_ = http.NewResponseController(br.w).SetReadDeadline(now)
	}
	timeout := bw.timeout
	if timeout == 0 {
		timeout = DefaultBodyTimeout
	}
	switch {
	case bw.head != nil:
		bw.used = false
		bw.timer.Reset(bw.head.due.Sub(now))
	case bw.used:
		bw.used = false
		bw.timer.Reset(timeout)
	default:
		bw.armed = false
	}
}
