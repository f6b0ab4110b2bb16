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

// TestAppendResult checks that AppendResult writes Result's bytes after
// what dst holds, for values whose encoding escapes HTML, calls a pointer
// receiver's MarshalJSON or fails, and that a nil dst is Result.
func TestAppendResult(t *testing.T) {
	n := new(big.Int).Lsh(big.NewInt(1), 70)
	type holder struct {
		N    big.Int `json:"n"`
		Text string  `json:"text"`
	}
	values := []any{holder{*n, "<a href=\"x\">&amp;</a>\u2028"}, []string{"a"}, map[string]int{"b": 2, "a": 1}, nil}
	for _, v := range values {
		want, err := rpcimpl.Result(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rpcimpl.AppendResult([]byte("prefix:"), v, nil)
		if err != nil || string(got) != "prefix:"+string(want) {
			t.Errorf("AppendResult(%v) = %s, %v; want prefix:%s", v, got, err, want)
		}
		if got, err := rpcimpl.AppendResult(nil, v, nil); err != nil || string(got) != string(want) {
			t.Errorf("AppendResult(nil, %v) = %s, %v; want %s", v, got, err, want)
		}
	}
	if _, err := rpcimpl.AppendResult(make([]byte, 0, 8), func() {}, nil); err == nil {
		t.Error("AppendResult of a value JSON cannot encode gave no error")
	}
	boom := errors.New("boom")
	if b, err := rpcimpl.AppendResult(make([]byte, 0, 8), 1, boom); b != nil || !errors.Is(err, boom) {
		t.Errorf("AppendResult with an error = %s, %v", b, err)
	}
	type plain struct {
		Text string `json:"text"`
	}
	if raceEnabled {
		return
	}
	dst := make([]byte, 0, 64)
	if allocs := testing.AllocsPerRun(100, func() {
		if _, err := rpcimpl.AppendResult(dst, plain{"x"}, nil); err != nil {
			t.Fatal(err)
		}
	}); allocs > 1 {
		t.Errorf("AppendResult into a buffer large enough: %v allocations, want at most 1 (the value's address)", allocs)
	}
}

// detached keeps what TestBuffer detaches on the heap, as a result is.
var detached []byte

// TestBuffer: Detach returns a copy of what was appended, the size of it,
// which later uses of the pooled buffer (a 70 KiB one among them) leave
// as it is; with a warm pool, a detach allocates only its copy.
func TestBuffer(t *testing.T) {
	var held [][]byte
	var want []string
	for i, n := range []int{0, 3, 600, 10, 70 << 10, 5} {
		buf := rpcimpl.GetBuffer()
		b := buf.Bytes()
		if len(b) != 0 {
			t.Fatalf("Bytes has %d bytes, want none", len(b))
		}
		for range n {
			b = append(b, byte('a'+i))
		}
		out := buf.Detach(b)
		if len(out) != n || cap(out) != n {
			t.Fatalf("Detach gave len %d cap %d, want %d", len(out), cap(out), n)
		}
		held = append(held, out)
		want = append(want, string(b))
	}
	for i := range held {
		if string(held[i]) != want[i] {
			t.Fatalf("result %d changed after later detaches", i)
		}
	}
	if raceEnabled {
		return
	}
	rpcimpl.GetBuffer().Detach(nil)
	got := testing.AllocsPerRun(100, func() {
		buf := rpcimpl.GetBuffer()
		detached = buf.Detach(append(buf.Bytes(), `{"a":1}`...))
	})
	if got != 1 {
		t.Errorf("%v allocations to encode into a pooled buffer and detach, want 1", got)
	}
}
