package mcphttp

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
)

type primeRecorder chan *conn

func (r primeRecorder) primed(cn *conn) { r <- cn }

// The queue calls primed for the connections still in it, in order, once
// they are due, not for those taken out, and its goroutine ends when it is
// empty.
func TestPrimerQueue(t *testing.T) {
	rpctest.CheckLeaks(t) // the queue's goroutine ends
	var p primer
	fired := make(primeRecorder, 4)
	cns := make([]*conn, 4)
	for i := range cns {
		cns[i] = &conn{}
		p.add(cns[i], fired)
	}
	p.remove(cns[0])
	p.remove(cns[2])
	p.remove(cns[2]) // no longer queued: nothing happens
	for _, want := range []*conn{cns[1], cns[3]} {
		select {
		case cn := <-fired:
			if cn != want {
				t.Fatalf("primed %p, want %p", cn, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("nothing primed")
		}
	}
	p.remove(cns[1]) // already primed: nothing happens
	p.mu.Lock()
	empty := p.head == nil && p.tail == nil
	p.mu.Unlock()
	if !empty {
		t.Fatal("queue not empty")
	}
	select {
	case cn := <-fired:
		t.Fatalf("primed %p, taken out", cn)
	default:
	}
}

type primeTimes chan time.Time

func (r primeTimes) primed(*conn) { r <- time.Now() }

// In virtual time: a connection is primed primeDelay after it was queued at
// the earliest, twice that at the latest, whether it was queued as the
// queue's goroutine started or while it slept.
func TestPrimerDueTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var p primer
		start := time.Now()
		ats := []time.Duration{0, 4 * time.Millisecond, 9 * time.Millisecond, 25 * time.Millisecond}
		fired := make([]primeTimes, len(ats))
		for i, at := range ats {
			time.Sleep(at - time.Since(start)) // the behaviour under test: queued at these times
			fired[i] = make(primeTimes, 1)
			p.add(&conn{}, fired[i])
		}
		for i, at := range ats {
			if d := (<-fired[i]).Sub(start) - at; d < primeDelay || d > 2*primeDelay {
				t.Errorf("queued at %v, primed %v later, want %v to %v", at, d, primeDelay, 2*primeDelay)
			}
		}
	})
}

// BenchmarkPrimerAddRemove is an Options.SSE call that answers in time: its
// connection is queued for its priming event's flush and taken out again.
func BenchmarkPrimerAddRemove(b *testing.B) {
	var p primer
	owner := make(primeRecorder, 1)
	cn := &conn{}
	b.ReportAllocs()
	for b.Loop() {
		p.add(cn, owner)
		p.remove(cn)
	}
}
