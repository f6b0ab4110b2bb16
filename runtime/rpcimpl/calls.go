package rpcimpl

import (
	"encoding/json"
	"iter"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
)

// Result is the JSON-RPC result of a method that returned result and err:
// err as it is when not nil, else result encoded (runtime.EncodeResult). A
// generated dispatcher returns it on what the implementation returns:
//
//	return rpcimpl.Result(h.impl.GetNote(ctx, p.ID))
func Result[R any](result R, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	// By address: a MarshalJSON or MarshalText with a pointer receiver
	// (big.Int's) is what encoding/json calls only on a value it can
	// address, and R's fields are addressed through it.
	return runtime.EncodeResult(&result)
}

// AppendResult is Result appending the encoded result to dst, a buffer the
// caller reuses (a generated MCP tool's Append, which the server hands its
// own buffer): the same bytes as Result's, without a slice of their own. A
// nil dst is Result.
func AppendResult[R any](dst []byte, result R, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	if dst == nil {
		return runtime.EncodeResult(&result)
	}
	a := appenders.Get().(*appender)
	a.b = dst
	err = a.enc.Encode(&result)
	out := a.b
	a.b = nil
	appenders.Put(a)
	if err != nil {
		return runtime.EncodeResult(&result) // the same internal error Result gives
	}
	// Encode ends the value with a newline, which json.Marshal does not.
	return out[:len(out)-1], nil
}

// appender is a json.Encoder writing into a slice, pooled with it so that
// encoding into a caller's buffer allocates nothing of its own.
type appender struct {
	b   []byte
	enc *json.Encoder
}

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

var appenders = sync.Pool{New: func() any {
	a := &appender{}
	a.enc = json.NewEncoder(a)
	return a
}}

// StreamError returns a sequence of one pair, the zero T and err: a
// generated client's stream method returns it when it cannot call at all.
func StreamError[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}

// Buffer is a pooled buffer a generated JSON-RPC handler encodes a result
// into with its generated encoder, when no buffer is handed to it (the
// dispatcher's serve<Method>): Detach returns a copy of the bytes the size
// of the result, as json.Marshal does, and puts the buffer back with the
// array it grew to, whatever its size, as encoding/json keeps its own
// buffers (a 1 MiB result does not grow a buffer again on every call).
type Buffer struct {
	b []byte
}

var buffers = sync.Pool{New: func() any { return &Buffer{b: make([]byte, 0, 512)} }}

// GetBuffer returns a Buffer from the pool.
func GetBuffer() *Buffer { return buffers.Get().(*Buffer) }

// Bytes returns the buffer's bytes, empty, to append a result to.
func (b *Buffer) Bytes() []byte { return b.b[:0] }

// Detach returns a copy of out, the bytes appended to b.Bytes(), and puts b
// back to the pool with out's array. b is not used after.
func (b *Buffer) Detach(out []byte) json.RawMessage {
	res := make(json.RawMessage, len(out))
	copy(res, out)
	b.b = out[:0]
	buffers.Put(b)
	return res
}
