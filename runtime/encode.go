package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// Outgoing messages are appended into pooled buffers rather than marshalled from
// envelope structs: the envelope is fixed text around a few raw values, and skipping
// reflection keeps a call's allocations down to the payload's own (strings through
// internal/jsonenc).

// appendErrorObject appends e as a JSON-RPC error object; data that is not valid JSON is
// left out so the response stays parseable.
func appendErrorObject(b []byte, e *Error) []byte {
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = jsonenc.AppendString(b, e.Message)
	if len(e.Data) > 0 && json.Valid(e.Data) {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, '}')
}

var nullID = []byte("null")

var errInvalidRaw = errors.New("json.RawMessage holds invalid JSON")

// appendResult appends a success response.
func appendResult(b, id, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// AppendErrorResponse appends to buf an error response carrying e, with id as its id
// (null when id is zero, as for a message whose id could not be read), and returns the
// extended slice. Data in e that is not valid JSON is left out.
func AppendErrorResponse(buf []byte, id ID, e *Error) []byte {
	if id.IsZero() {
		return appendErrorResponse(buf, nullID, e)
	}
	return appendErrorResponse(buf, id.appendText(nil), e)
}

// appendErrorResponse appends an error response.
func appendErrorResponse(b, id []byte, e *Error) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = appendErrorObject(b, e)
	return append(b, '}')
}

// maxPooled keeps one huge message from pinning its buffer in the pool for good.
const maxPooled = 64 << 10

// buffer is a pooled byte slice for building one outgoing message.
type buffer struct{ b []byte }

var bufferPool = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, 512)} }}

func getBuffer() *buffer { return bufferPool.Get().(*buffer) }

func (b *buffer) free() {
	if cap(b.b) > maxPooled {
		return
	}
	b.b = b.b[:0]
	bufferPool.Put(b)
}

// encoder is a pooled buffer with a json.Encoder writing into it, so encoding params
// appends in place instead of allocating a fresh slice per call like json.Marshal.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoderPool = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

func getEncoder() *encoder { return encoderPool.Get().(*encoder) }

func (e *encoder) free() {
	if e.buf.Cap() > maxPooled {
		return
	}
	e.buf.Reset()
	encoderPool.Put(e)
}

// value appends the JSON encoding of v.
func (e *encoder) value(v any) error {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return errInvalidRaw
		}
		e.buf.Write(raw)
		return nil
	}
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	e.buf.Truncate(e.buf.Len() - 1) // Encode ends every value with a newline
	return nil
}

// AppendRequest appends to buf a request for method with the given id, or a
// notification when id is 0, with params (omitted when nil) encoded as encoding/json
// does (a json.RawMessage must be valid JSON), and returns the extended slice. On error
// buf is returned unchanged.
func AppendRequest(buf []byte, id int64, method string, params any) ([]byte, error) {
	e := getEncoder()
	defer e.free()
	if err := e.request(id, method, params); err != nil {
		return buf, fmt.Errorf("encode params of %s: %w", method, err)
	}
	return append(buf, e.buf.Bytes()...), nil
}

// request appends a request (id != 0) or notification (id == 0) for method.
func (e *encoder) request(id int64, method string, params any) error {
	e.buf.WriteString(`{"jsonrpc":"2.0",`)
	if id != 0 {
		e.buf.WriteString(`"id":`)
		e.buf.Write(strconv.AppendInt(e.buf.AvailableBuffer(), id, 10))
		e.buf.WriteByte(',')
	}
	e.buf.WriteString(`"method":`)
	e.buf.Write(jsonenc.AppendString(e.buf.AvailableBuffer(), method))
	if params != nil {
		e.buf.WriteString(`,"params":`)
		if err := e.value(params); err != nil {
			return err
		}
	}
	e.buf.WriteByte('}')
	return nil
}
