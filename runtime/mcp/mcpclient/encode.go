package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Requests are appended into pooled buffers around precomputed fragments (the
// modern _meta members are built once per client), so the only encoding work
// per call is the caller's arguments.

// clientBuf is a pooled message buffer with a json.Encoder appending into it.
type clientBuf struct {
	b   bytes.Buffer
	enc *json.Encoder
	// method and params are what begin wrote: the method, and where the
	// params' members start in b.
	method string
	params int
}

var clientBufPool = sync.Pool{New: func() any {
	cb := new(clientBuf)
	cb.b.Grow(512)
	cb.enc = json.NewEncoder(&cb.b)
	return cb
}}

// clientMaxPooled keeps one huge request from pinning its buffer in the pool.
const clientMaxPooled = 64 << 10

func clientGetBuf() *clientBuf { return clientBufPool.Get().(*clientBuf) }

func (cb *clientBuf) free() {
	if cb.b.Cap() > clientMaxPooled {
		return
	}
	cb.b.Reset()
	clientBufPool.Put(cb)
}

// str appends s as a JSON string.
func (cb *clientBuf) str(s string) {
	cb.b.Write(jsonenc.AppendString(cb.b.AvailableBuffer(), s))
}

// begin appends the envelope of request id (a notification when id is 0)
// up to the inside of its params object.
func (cb *clientBuf) begin(id int64, method string) {
	cb.b.WriteString(`{"jsonrpc":"2.0",`)
	if id != 0 {
		cb.b.WriteString(`"id":`)
		cb.b.Write(strconv.AppendInt(cb.b.AvailableBuffer(), id, 10))
		cb.b.WriteByte(',')
	}
	cb.b.WriteString(`"method":`)
	cb.str(method)
	cb.b.WriteString(`,"params":{`)
	cb.method, cb.params = method, cb.b.Len()
}

// field appends the key of a params member, after a comma unless it is the first.
func (cb *clientBuf) field(key string) {
	if last := cb.b.Bytes(); last[len(last)-1] != '{' {
		cb.b.WriteByte(',')
	}
	cb.b.WriteByte('"')
	cb.b.WriteString(key)
	cb.b.WriteString(`":`)
}

// end appends params._meta when there is any (the progress token, the modern
// per-request members) and closes params and the message.
func (cb *clientBuf) end(meta []byte, progressToken int64) { cb.endWith(meta, nil, progressToken) }

// endWith is end with the members of two _meta parts: the client's own and
// those its middleware added.
func (cb *clientBuf) endWith(meta, more []byte, progressToken int64) {
	if len(meta) == 0 {
		meta, more = more, nil
	}
	if len(meta) > 0 || progressToken != 0 {
		cb.field("_meta")
		cb.b.WriteByte('{')
		if progressToken != 0 {
			cb.b.WriteString(`"progressToken":`)
			cb.b.Write(strconv.AppendInt(cb.b.AvailableBuffer(), progressToken, 10))
			if len(meta) > 0 {
				cb.b.WriteByte(',')
			}
		}
		cb.b.Write(meta)
		if len(more) > 0 {
			cb.b.WriteByte(',')
			cb.b.Write(more)
		}
		cb.b.WriteByte('}')
	}
	cb.b.WriteString(`}}`)
}

var errArgumentsNotObject = errors.New("mcp: tool arguments must encode as a JSON object")

// arguments appends the "arguments" member for args, or nothing for nil or
// JSON null.
func (cb *clientBuf) arguments(args any) error {
	switch a := args.(type) {
	case nil:
		return nil
	case json.RawMessage:
		a = bytes.TrimSpace(a)
		if len(a) == 0 || string(a) == "null" {
			return nil
		}
		if a[0] != '{' || !json.Valid(a) {
			return errArgumentsNotObject
		}
		cb.field("arguments")
		cb.b.Write(a)
		return nil
	}
	mark := cb.b.Len()
	cb.field("arguments")
	start := cb.b.Len()
	if err := cb.enc.Encode(args); err != nil {
		return err
	}
	cb.b.Truncate(cb.b.Len() - 1) // Encode ends the value with a newline
	v := cb.b.Bytes()[start:]
	if string(v) == "null" {
		cb.b.Truncate(mark)
		return nil
	}
	if v[0] != '{' {
		return errArgumentsNotObject
	}
	return nil
}

// clientMeta returns the members of the modern per-request _meta object,
// without braces.
func clientMeta(version string, caps json.RawMessage, info mcp.Implementation, logLevel string) []byte {
	b := []byte(`"` + mcp.MetaProtocolVersion + `":`)
	b = jsonenc.AppendString(b, version)
	b = append(b, `,"`+mcp.MetaClientCapabilities+`":`...)
	b = append(b, caps...)
	b = append(b, `,"`+mcp.MetaClientInfo+`":`...)
	infoJSON, _ := json.Marshal(info) // a struct of strings always encodes
	b = append(b, infoJSON...)
	if logLevel != "" {
		b = append(b, `,"`+mcp.MetaLogLevel+`":`...)
		b = jsonenc.AppendString(b, logLevel)
	}
	return b
}
