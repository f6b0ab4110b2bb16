package mcphttp

import (
	"sync"
	"time"
)

// The late flushes of priming events. An Options.SSE response is an event
// stream from the start, and its priming event (or, before 2025-11-25, its
// headers) waits for the call's first event, which mostly follows at once;
// should none come within primeDelay (to twice that, see below), it is
// flushed on its own (see primeLate). A timer per response cost a runtime
// timer set and stopped on every call, the earliest in the process, so
// setting it woke the network poller. The responses waiting go in one queue
// instead, in the order they were queued, served by one goroutine with one
// timer, which runs only while the queue is not empty: a response that
// answers in time leaves the queue, and no timer was touched for it. Nor
// was the clock read for it: the goroutine stamps the connections queued
// since it last woke with their due time when it wakes next (at once when
// it starts, otherwise when the head of the queue falls due), so a priming
// event waits between primeDelay and twice that.

// primeOwner is what a queued connection belongs to: primed is called once
// its primeDelay has passed, unless it left the queue first.
type primeOwner interface {
	primed(cn *conn)
}

// primer is the queue of the connections whose priming event waits.
type primer struct {
	mu         sync.Mutex
	head, tail *conn
	fresh      *conn // the first connection not stamped with its due time yet; the rest of the queue is not either
	running    bool  // the goroutine serving the queue runs
}

// add queues cn, whose owner's primed is called primeDelay from now at
// the earliest, twice that at the latest, unless remove takes cn out of
// the queue first; cn is not queued.
func (p *primer) add(cn *conn, owner primeOwner) {
	p.mu.Lock()
	cn.primeOwner, cn.primeDue = owner, time.Time{}
	if p.fresh == nil {
		p.fresh = cn
	}
	cn.primeQueued = true
	cn.primePrev = p.tail
	if p.tail != nil {
		p.tail.primeNext = cn
	} else {
		p.head = cn
	}
	p.tail = cn
	start := !p.running
	p.running = true
	p.mu.Unlock()
	if start {
		go p.run()
	}
}

// remove takes cn out of the queue, if it is there.
func (p *primer) remove(cn *conn) {
	p.mu.Lock()
	if cn.primeQueued {
		p.unlink(cn)
	}
	cn.primeOwner = nil
	p.mu.Unlock()
}

// unlink takes cn, queued, out of the queue; p.mu held.
func (p *primer) unlink(cn *conn) {
	if p.fresh == cn {
		p.fresh = cn.primeNext
	}
	if cn.primePrev != nil {
		cn.primePrev.primeNext = cn.primeNext
	} else {
		p.head = cn.primeNext
	}
	if cn.primeNext != nil {
		cn.primeNext.primePrev = cn.primePrev
	} else {
		p.tail = cn.primePrev
	}
	cn.primePrev, cn.primeNext, cn.primeQueued = nil, nil, false
}

// run stamps the connections queued since it last woke, and calls primed
// on each as it falls due, until the queue is empty.
func (p *primer) run() {
	var t *time.Timer
	var due []*conn
	var owners []primeOwner
	for {
		p.mu.Lock()
		now := time.Now()
		// Queued since the last wake, so at now at the latest.
		for cn := p.fresh; cn != nil; cn = cn.primeNext {
			cn.primeDue = now.Add(primeDelay)
		}
		p.fresh = nil
		for p.head != nil && !p.head.primeDue.After(now) {
			cn := p.head
			due = append(due, cn)
			owners = append(owners, cn.primeOwner)
			p.unlink(cn)
		}
		var wait time.Duration
		if p.head == nil {
			if len(due) == 0 {
				p.running = false
				p.mu.Unlock()
				if t != nil {
					t.Stop()
				}
				return
			}
		} else {
			wait = p.head.primeDue.Sub(now)
		}
		p.mu.Unlock()
		// Outside p.mu: primed takes its owner's lock, which remove is
		// called with.
		for i, cn := range due {
			owners[i].primed(cn)
		}
		clear(due)
		clear(owners)
		due, owners = due[:0], owners[:0]
		if wait <= 0 {
			continue // the queue was empty: it is checked again
		}
		if t == nil {
			t = time.NewTimer(wait)
		} else {
			t.Reset(wait)
		}
		<-t.C
	}
}
