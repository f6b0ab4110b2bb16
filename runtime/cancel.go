package runtime

import (
	"context"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/internal/cancelhook"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// tracker keeps the in-flight incoming requests by id, so a cancellation can find
// them. A Conn always has one; a Processor has one when its Options name a CancelMethod.
type tracker struct {
	mu sync.Mutex
	// The in-flight requests by id: the first in one, so a connection
	// that sends one request at a time (an idle one among them) needs no
	// map; the others in inflight, made when first needed.
	one      *incoming
	inflight map[ID]*incoming
	method   string // the cancel notification's method; "" for none
	key      string // the member of its params that holds the id
	// missed, if set, cancels a request that is not in flight yet (queued in a Conn).
	missed func(id ID) bool
}

func newTracker(opts Options) *tracker {
	return &tracker{method: opts.CancelMethod, key: opts.cancelIDKey()}
}

// track makes an incoming request cancelable on its own under parent (its context
// is made when first needed, see incoming) and findable by id.
func (t *tracker) track(parent context.Context, in *incoming) {
	in.Context, in.tracked = parent, true
	if id := in.req.ID; !id.IsZero() && !id.isNull() {
		t.mu.Lock()
		switch {
		case t.one == nil || t.one.req.ID == id:
			t.one = in
		default:
			if t.inflight == nil {
				t.inflight = make(map[ID]*incoming)
			}
			t.inflight[id] = in
		}
		t.mu.Unlock()
	}
}

func (t *tracker) untrack(in *incoming) {
	if id := in.req.ID; !id.IsZero() && !id.isNull() {
		t.mu.Lock()
		if t.one == in {
			t.one = nil
		} else if t.inflight[id] == in {
			delete(t.inflight, id)
		}
		t.mu.Unlock()
	}
	in.cancelSelf()
}

// cancel cancels the context of the in-flight (or queued) request whose id is id
// and reports whether there was one. When the request's handler set a cancel
// barrier, cancel returns only once it has taken and released it.
func (t *tracker) cancel(id ID) bool {
	t.mu.Lock()
	in := t.inflight[id]
	if t.one != nil && t.one.req.ID == id {
		in = t.one
	}
	t.mu.Unlock()
	if in == nil {
		return t.missed != nil && t.missed(id)
	}
	in.cancelSelf()
	if mu := in.barrier.Load(); mu != nil {
		// Wait out a send of the handler's that checked the context just
		// before it was cancelled (package cancelhook).
		if f := cancelhook.Waiting.Load(); f != nil {
			(*f)(in)
		}
		mu.Lock()
		//lint:ignore SA2001 an empty critical section is the barrier
		mu.Unlock()
	}
	return true
}

// cancelNotification handles an incoming CancelMethod notification; it reports whether
// m was one. An id member that is missing or names no in-flight request is ignored.
func (t *tracker) cancelNotification(m *message) bool {
	name := t.method
	if name == "" || len(m.method) != len(name)+2 || string(m.method[1:len(m.method)-1]) != name {
		return false
	}
	obj, ok := jsonscan.OpenObject(m.params)
	for ok {
		key, val, more := obj.NextMember()
		if !more {
			break
		}
		if string(jsonscan.UnescapeKey(key)) == t.key {
			t.cancel(makeID(val))
			break
		}
	}
	return true
}

// CancelRequest cancels the context of the in-flight incoming request with the given id
// and reports whether there was one. A request still queued for a handler slot is
// marked instead: its handler runs with a context that is already cancelled.
func (c *Conn) CancelRequest(id ID) bool { return c.tr.cancel(id) }
