package mcpserver

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// The requests a legacy session sends its client when the call came through
// Session.Handle (HTTP, in process), and the client's answers to them.

// outRequests holds the requests a session sent its client through Handle's
// notify function and waits for the answers to, which come back as messages
// given to Handle (deliver).
type outRequests struct {
	waiting atomic.Int32 // len(pending), so deliver is cheap when none is
	mu      sync.Mutex
	next    int64
	closed  bool
	pending map[int64]chan outAnswer
}

// outAnswer is the client's answer to one request.
type outAnswer struct {
	res json.RawMessage
	err error
}

// errSessionClosed fails the requests a closed session waited on.
// It wraps runtime.ErrClosed.
var errSessionClosed error = sessionClosedError{}

// sessionClosedError is errSessionClosed's type: a constant, so that package
// initialisation has nothing to do.
type sessionClosedError struct{}

func (sessionClosedError) Error() string { return "mcp: session closed: " + runtime.ErrClosed.Error() }
func (sessionClosedError) Unwrap() error { return runtime.ErrClosed }

// call sends the request method(params) through cc.notify and waits for the
// answer, cc's end, or the session's.
func (o *outRequests) call(cc *callCtx, method string, params []byte) (json.RawMessage, error) {
	if err := cc.Err(); err != nil {
		return nil, err
	}
	ch := make(chan outAnswer, 1)
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil, errSessionClosed
	}
	if o.pending == nil {
		o.pending = make(map[int64]chan outAnswer)
	}
	o.next++
	id := o.next
	o.pending[id] = ch
	o.waiting.Add(1)
	o.mu.Unlock()

	msg := make([]byte, 0, len(params)+len(method)+64)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = cc.ss.appendRequestID(msg, id)
	msg = append(msg, `,"method":"`...)
	msg = append(msg, method...)
	msg = append(msg, `","params":`...)
	msg = append(append(msg, params...), '}')
	cc.mu.Lock()
	if cc.done {
		cc.mu.Unlock()
		o.drop(id)
		return nil, errCallReturned
	}
	cc.notify(msg)
	cc.mu.Unlock()

	select {
	case a := <-ch:
		if a.err != nil {
			return nil, a.err
		}
		return a.res, checkAnswer(method, a.res)
	case <-cc.Done():
		if o.drop(id) {
			params := cc.ss.appendRequestID([]byte(`{"`+cancelledIDMember+`":`), id)
			cc.mu.Lock()
			if !cc.done {
				cc.send(mcp.NotificationCancelled, append(params, '}'))
			}
			cc.mu.Unlock()
		}
		return nil, cc.Err()
	}
}

// drop forgets the request id and reports whether it was still waiting.
func (o *outRequests) drop(id int64) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.pending[id]; !ok {
		return false
	}
	delete(o.pending, id)
	o.waiting.Add(-1)
	return true
}

// deliver hands msg to the request it answers and reports whether it was
// such an answer; anything else is left to the session to process.
func (o *outRequests) deliver(ss *Session, msg []byte) bool {
	if o.waiting.Load() == 0 {
		return false
	}
	r, err := runtime.ParseResponse(msg)
	if err != nil {
		return false
	}
	id, ok := ss.requestNumber(r.ID.String())
	if !ok {
		return false
	}
	o.mu.Lock()
	ch := o.pending[id]
	if ch != nil {
		delete(o.pending, id)
		o.waiting.Add(-1)
	}
	o.mu.Unlock()
	if ch == nil {
		return false
	}
	var a outAnswer
	if a.err = r.Err(); a.err == nil {
		a.res = bytes.Clone(r.Result)
	}
	ch <- a
	return true
}

// closeAll fails every request waiting for an answer, and every later one:
// the session has ended.
func (o *outRequests) closeAll() {
	o.mu.Lock()
	pending := o.pending
	o.pending, o.closed = nil, true
	o.waiting.Store(0)
	o.mu.Unlock()
	for _, ch := range pending {
		ch <- outAnswer{err: errSessionClosed}
	}
}
