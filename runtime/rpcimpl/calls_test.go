package rpcimpl_test

import (
	"context"
	"errors"
	"iter"
	"math/big"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
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

// TestResultByAddress encodes results whose MarshalJSON has a pointer
// receiver (big.Int's): encoding/json calls it only on a value it can
// address, and writes {} for a big.Int it cannot; so do stream items.
func TestResultByAddress(t *testing.T) {
	n := new(big.Int).Lsh(big.NewInt(1), 70)
	if b, err := rpcimpl.Result(*n, nil); err != nil || string(b) != "1180591620717411303424" {
		t.Errorf("Result of a big.Int = %s, %v", b, err)
	}
	type holder struct {
		N big.Int `json:"n"`
	}
	if b, err := rpcimpl.Result(holder{*n}, nil); err != nil || string(b) != `{"n":1180591620717411303424}` {
		t.Errorf("Result of a struct holding a big.Int = %s, %v", b, err)
	}
	if b, err := rpcimpl.Result((*big.Int)(nil), nil); err != nil || string(b) != "null" {
		t.Errorf("Result of a nil *big.Int = %s, %v", b, err)
	}
	seq := func(yield func(big.Int, error) bool) { yield(*n, nil) }
	if b, err := runtime.ServeStream(context.Background(), iter.Seq2[big.Int, error](seq)); err != nil || string(b) != "[1180591620717411303424]" {
		t.Errorf("ServeStream of big.Int items = %s, %v", b, err)
	}
}
