// Package cancelhook ties a lock to the cancellation of a request served by
// package runtime, so that a cancellation waits for what the request's
// handler does under that lock: once the cancel returns, nothing done under
// the lock that could have missed the cancellation is still under way.
package cancelhook

import (
	"sync"
	"sync/atomic"
)

// Key is the context key under which a request's context answers with its
// Barrier.
type Key struct{}

// Barrier is the request a handler's context belongs to.
type Barrier interface {
	// SetCancelBarrier makes a cancellation of the request, after
	// cancelling its context, take and release mu before it returns.
	SetCancelBarrier(mu *sync.Mutex)
}

// Waiting, when set, is called by a cancellation of request b just before it
// takes b's barrier: a seam for tests, which learn from it that the
// cancellation is waiting for the request's handler.
var Waiting atomic.Pointer[func(b Barrier)]
