package rpcimpl_test

import (
	"errors"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

func TestResult(t *testing.T) {
	b, err := rpcimpl.Result([]string{"a"}, nil)
	if err != nil || string(b) != `["a"]` {
		t.Fatalf("Result = %s, %v", b, err)
	}
	boom := errors.New("boom")
	if b, err := rpcimpl.Result(0, boom); b != nil || !errors.Is(err, boom) {
		t.Fatalf("Result with an error = %s, %v", b, err)
	}
	if _, err := rpcimpl.Result(func() {}, nil); err == nil {
		t.Fatal("Result of a value JSON cannot encode gave no error")
	}
}

// TestStreamError checks that the sequence holds one pair, the zero item
// and the error, and stops there even when the caller would read on.
func TestStreamError(t *testing.T) {
	boom := errors.New("boom")
	var n int
	for v, err := range rpcimpl.StreamError[int](boom) {
		n++
		if v != 0 || !errors.Is(err, boom) {
			t.Fatalf("pair %d = %v, %v; want 0, boom", n, v, err)
		}
	}
	if n != 1 {
		t.Fatalf("%d pairs, want 1", n)
	}
}
