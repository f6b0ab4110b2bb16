package rpcimpl

import (
	"encoding/json"
	"iter"

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

// StreamError returns a sequence of one pair, the zero T and err: a
// generated client's stream method returns it when it cannot call at all.
func StreamError[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}
