package rpcimpl

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
)

// A generated client decodes a method's result with a generated function
// too, which reads it as encoding/json would and with no reflection: the
// Decoder of NewResultDecoder, lenient where params are strict. A type the
// generator cannot read that way (a non-empty interface, say) is left to
// json.Unmarshal, as are the values of types that decode themselves.

// NewResultDecoder returns a Decoder for a result, which a generated client
// reads as encoding/json reads into a fresh value: null where Go has no nil
// reads as the zero value, an array longer than a Go array drops the rest
// (the generated code skips it), unknown keys are skipped and keys match
// case-insensitively (the generated code calls FoldKey), and nothing is
// checked against a schema. Values still must have their Go type (a string
// is not read into an int) and the JSON must be well formed; Finish then
// returns the problems as a plain error whose message names the first
// value by its path, for example
//
//	"items[2].id": expected an integer, got "7"
func NewResultDecoder(data []byte) Decoder {
	return Decoder{buf: data, orig: data, failedAt: -1, lenient: true}
}

// FoldKey is a result decoder's match of a key no field has exactly: it
// sets *key to the first of fields' keys equal to it under Unicode case
// folding, as encoding/json matches keys, and reports whether there was
// one; the generated code then matches again.
func (d *Decoder) FoldKey(key *[]byte, fields *Fields) bool {
	for _, k := range fields.keys {
		if bytes.EqualFold(*key, k) && !bytes.Equal(*key, k) {
			*key = k
			return true
		}
	}
	return false
}

// Append is append for a result decoder's slices: a full slice doubles,
// where append grows a long one by a quarter, which leaves about four times
// the final array behind while a large array is read (two with doubling).
func Append[S ~[]E, E any](s S, v E) S {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 1))
	}
	return append(s, v)
}

// resultError is the error of a result decoder: the first problem, and how
// many more there were.
func resultError(problems []Problem) error {
	var b strings.Builder
	p := problems[0]
	if p.Path != "" {
		b.WriteString(strconv.Quote(p.Path))
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	if n := len(problems) - 1; n > 0 {
		b.WriteString(" (and " + strconv.Itoa(n) + " more problems)")
	}
	return errors.New(b.String())
}

// ResultOf holds a result a generated function decodes: a generated client
// passes one as the result of its call, and the transport decodes into it
// with DecodeResult (runtime.Response.Decode and the MCP client look for
// that method), or through UnmarshalJSON when it calls json.Unmarshal.
type ResultOf[R any] struct {
	// Value is the result once decoded.
	Value   R
	decode  func(*Decoder, *R)
	wrapped bool // the result is {"result": <value>} (an MCP tool's that is not an object)
}

// NewResultOf returns a ResultOf decoding with decode, a generated function.
func NewResultOf[R any](decode func(*Decoder, *R)) *ResultOf[R] {
	return &ResultOf[R]{decode: decode}
}

// NewWrappedResultOf is NewResultOf for a result that comes wrapped as
// {"result": <value>}, as an MCP server sends a tool's result that is not a
// JSON object: Value is what is under "result".
func NewWrappedResultOf[R any](decode func(*Decoder, *R)) *ResultOf[R] {
	return &ResultOf[R]{decode: decode, wrapped: true}
}

// DecodeResult decodes data, the JSON text of one value, into r.Value.
func (r *ResultOf[R]) DecodeResult(data []byte) error {
	// The decode function is called through a func value, which makes the
	// Decoder escape: pooled, it is not allocated per call.
	d := resultDecoders.Get().(*Decoder)
	*d = Decoder{buf: data, orig: data, failedAt: -1, lenient: true, key: d.key[:0]}
	if !r.wrapped {
		r.decode(d, &r.Value)
	} else if d.Object() {
		var key []byte
		for d.NextKey(&key) {
			if bytes.EqualFold(key, resultKey) {
				r.decode(d, &r.Value)
			} else {
				d.Skip()
			}
		}
	}
	err := d.Finish()
	*d = Decoder{key: d.key[:0]} // nothing of data kept
	if cap(d.key) > 1<<10 {
		d.key = nil // a long escaped key: not kept for good
	}
	resultDecoders.Put(d)
	return err
}

var resultDecoders = sync.Pool{New: func() any { return new(Decoder) }}

var resultKey = []byte("result")

// UnmarshalJSON implements json.Unmarshaler with DecodeResult, for a
// transport that decodes results with json.Unmarshal.
func (r *ResultOf[R]) UnmarshalJSON(data []byte) error {
	return r.DecodeResult(data)
}

// Call is runtime.Call decoding the result with decode, a generated
// function: the body of a generated client's method.
func Call[R any](ctx context.Context, c runtime.Caller, method string, params any, decode func(*Decoder, *R)) (R, error) {
	r := NewResultOf(decode)
	if err := c.Call(ctx, method, params, r); err != nil {
		var zero R
		return zero, err
	}
	return r.Value, nil
}

// CallIdempotent is runtime.CallIdempotent decoding the result with
// decode, a generated function.
func CallIdempotent[R any](ctx context.Context, c runtime.Caller, method string, params any, decode func(*Decoder, *R)) (R, error) {
	ic, ok := c.(runtime.IdempotentCaller)
	if !ok {
		return Call(ctx, c, method, params, decode)
	}
	r := NewResultOf(decode)
	if err := ic.CallIdempotent(ctx, method, params, r); err != nil {
		var zero R
		return zero, err
	}
	return r.Value, nil
}
