package runtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A tracked request's context is made when first needed (incoming.ownContext):
// these check that it behaves as context.WithCancel(parent) would, whenever it
// is made: before or after its cancellation, before or after its parent's.

type ctxKey struct{}

func newTracked(parent context.Context) (*tracker, *incoming) {
	t := &tracker{}
	in := &incoming{req: Request{ID: StringID("a")}}
	t.track(parent, in)
	return t, in
}

func TestLazyCancelLive(t *testing.T) {
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	_, in := newTracked(parent)
	if in.Err() != nil || context.Cause(in) != nil || in.own.Load() != nil {
		t.Fatalf("live: err %v cause %v own %v", in.Err(), context.Cause(in), in.own.Load())
	}
	if in.Value(ctxKey{}) != "v" || in.own.Load() != nil {
		t.Fatal("a value of the parent's made a context")
	}
	if incomingFrom(in) != in {
		t.Fatal("incomingFrom")
	}
}

func TestLazyCancelSelfBeforeMade(t *testing.T) {
	parent, cancelParent := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
	tr, in := newTracked(parent)
	tr.untrack(in)
	if in.own.Load() != nil {
		t.Fatal("untrack made a context")
	}
	if in.Err() != context.Canceled {
		t.Fatalf("err %v", in.Err())
	}
	cancelParent(errors.New("later"))
	if in.Err() != context.Canceled || context.Cause(in) != context.Canceled {
		t.Fatalf("after the parent: err %v cause %v", in.Err(), context.Cause(in))
	}
	select {
	case <-in.Done():
	default:
		t.Fatal("Done not closed")
	}
	if in.Value(ctxKey{}) != "v" {
		t.Fatal("value lost")
	}
	child, cancel := context.WithCancel(in)
	defer cancel()
	if child.Err() != context.Canceled {
		t.Fatalf("child err %v", child.Err())
	}
}

func TestLazyCancelAfterParent(t *testing.T) {
	cause := errors.New("cause")
	parent, cancelParent := context.WithDeadlineCause(context.Background(), time.Now().Add(time.Hour), cause)
	tr, in := newTracked(parent)
	if d, ok := in.Deadline(); !ok || d.IsZero() {
		t.Fatal("deadline lost")
	}
	cancelParent()
	if in.Err() != context.Canceled || context.Cause(in) != context.Canceled {
		t.Fatalf("parent cancelled: err %v cause %v", in.Err(), context.Cause(in))
	}
	tr.untrack(in)
	if in.state.Load() != cancelledAfterParent {
		t.Fatalf("state %d", in.state.Load())
	}
	<-in.Done()
	if in.Err() != context.Canceled || context.Cause(in) != context.Canceled {
		t.Fatalf("made after: err %v cause %v", in.Err(), context.Cause(in))
	}

	parent2, cancel2 := context.WithCancelCause(context.Background())
	tr, in = newTracked(parent2)
	cancel2(cause)
	tr.untrack(in)
	if in.Err() != context.Canceled || context.Cause(in) != cause {
		t.Fatalf("parent's cause: err %v cause %v", in.Err(), context.Cause(in))
	}
	<-in.Done()
	if context.Cause(in) != cause {
		t.Fatalf("made after, parent's cause: %v", context.Cause(in))
	}
}

func TestLazyCancelMadeThenCancelled(t *testing.T) {
	tr, in := newTracked(context.Background())
	done := in.Done() // made live
	fired := make(chan struct{})
	stop := context.AfterFunc(in, func() { close(fired) })
	defer stop()
	child, cancel := context.WithCancel(in)
	defer cancel()
	if !tr.cancel(StringID("a")) {
		t.Fatal("not found")
	}
	<-done
	<-fired
	<-child.Done()
	if in.Err() != context.Canceled || context.Cause(in) != context.Canceled || child.Err() != context.Canceled {
		t.Fatalf("err %v cause %v child %v", in.Err(), context.Cause(in), child.Err())
	}
	tr.untrack(in)
}

func TestLazyCancelParentReachesMade(t *testing.T) {
	cause := errors.New("gone")
	parent, cancelParent := context.WithCancelCause(context.Background())
	tr, in := newTracked(parent)
	done := in.Done()
	cancelParent(cause)
	<-done
	if in.Err() != context.Canceled || context.Cause(in) != cause {
		t.Fatalf("err %v cause %v", in.Err(), context.Cause(in))
	}
	tr.untrack(in)
	if context.Cause(in) != cause {
		t.Fatalf("after untrack: %v", context.Cause(in))
	}
}

func TestUntrackedDoneIsParents(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &incoming{Context: parent}
	if in.Done() != parent.Done() || in.own.Load() != nil {
		t.Fatal("an untracked request made a context")
	}
}

// TestLazyCancelRace makes the context on two goroutines while a third
// cancels the request: every Done channel closes, and all are the same.
func TestLazyCancelRace(t *testing.T) {
	for range 200 {
		tr, in := newTracked(context.Background())
		got := make(chan (<-chan struct{}), 2)
		for range 2 {
			go func() { got <- in.Done() }()
		}
		go tr.cancel(StringID("a"))
		a, b := <-got, <-got
		<-a
		if a != b || in.Err() != context.Canceled {
			t.Fatalf("two channels, or err %v", in.Err())
		}
		tr.untrack(in)
	}
}
