//go:build !race

// The race detector's sync.Pool drops items at random, so the allocation
// counts of pooled values vary under it: these run without it.

package runtime_test

import (
	"context"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// countCaller answers every call at once, allocating nothing.
type countCaller struct{ n int }

func (c *countCaller) Call(_ context.Context, _ string, _, result any) error {
	c.n++
	if p, ok := result.(*int); ok {
		*p = c.n
	}
	return nil
}

func (c *countCaller) CallIdempotent(ctx context.Context, method string, params, result any) error {
	return c.Call(ctx, method, params, result)
}

func (c *countCaller) Notify(context.Context, string, any) error { c.n++; return nil }

// TestWrapCallerAllocatesNothing: a request, an idempotent request and a
// notification through WrapCaller's chain of middleware that does nothing
// allocate nothing (the ClientCall each sees is reused), and the middleware
// sees each call's own fields.
func TestWrapCallerAllocatesNothing(t *testing.T) {
	var seen runtime.ClientCall
	pass := func(next runtime.Invoker) runtime.Invoker {
		return func(ctx context.Context, call *runtime.ClientCall) error {
			seen = *call
			return next(ctx, call)
		}
	}
	w := runtime.WrapCaller(&countCaller{}, pass, pass)
	ctx := context.Background()
	var got int
	allocs := testing.AllocsPerRun(100, func() {
		if err := w.Call(ctx, "add", nil, &got); err != nil {
			t.Fatal(err)
		}
		if err := w.CallIdempotent(ctx, "get", nil, &got); err != nil {
			t.Fatal(err)
		}
		if err := w.Notify(ctx, "ping", nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a call, an idempotent call and a notification through middleware: %v allocations, want 0", allocs)
	}
	if seen.Kind != runtime.KindNotification || seen.Method != "ping" || seen.Result != nil || seen.Idempotent {
		t.Errorf("the last call middleware saw: %+v, want the notification ping alone", seen)
	}
	if err := w.CallIdempotent(ctx, "get", nil, &got); err != nil || !seen.Idempotent || seen.Method != "get" || seen.Result != &got {
		t.Errorf("an idempotent call after the notification: %+v, %v", seen, err)
	}
}
