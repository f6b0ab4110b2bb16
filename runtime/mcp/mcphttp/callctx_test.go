package mcphttp

import (
	"context"
	"errors"
	"testing"
)

// TestCallCtx: a 2026-07-28 call's context ends with its request or with
// end (a Shutdown that gives up), whether its Done channel was asked for
// before, after or never, and so does a context derived from it; values
// come from the request's context.
func TestCallCtx(t *testing.T) {
	type key struct{}
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	for _, tc := range []struct {
		name       string
		doneBefore bool // Done is asked for before the call ends
		byRequest  bool // the request ends it, not end
	}{{"end, Done after", false, false}, {"end, Done before", true, false},
		{"request, Done after", false, true}, {"request, Done before", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			req, cancelReq := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
			defer cancelReq()
			c := &callCtx{Context: req}
			if c.Value(key{}) != "v" {
				t.Fatal("the request's value is lost")
			}
			var child context.Context
			if tc.doneBefore {
				if closed(c.Done()) || c.Err() != nil {
					t.Fatal("ended before its time")
				}
				var cancel context.CancelFunc
				child, cancel = context.WithCancel(c)
				defer cancel()
			}
			if tc.byRequest {
				cancelReq()
			} else {
				c.end()
			}
			if !errors.Is(c.Err(), context.Canceled) {
				t.Fatalf("Err %v", c.Err())
			}
			if !closed(c.Done()) {
				t.Fatal("Done is not closed")
			}
			if child != nil {
				<-child.Done() // a derived context ends too
			}
			if c.Value(key{}) != "v" {
				t.Fatal("the request's value is lost once joined")
			}
			c.release()
		})
	}
}
