package mcphttp

import (
	"testing"
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
