// Package wire slices the members that the MCP server, client and
// transports route by out of raw JSON-RPC messages, without decoding them:
// routing a message then costs no allocations. Nothing here panics; malformed input is
// reported as such.
package wire

import (
	"bytes"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime"
)

// Members calls set with each member of the JSON object obj, in order (the
// key unescaped, the value raw), and reports whether obj is a well-formed
// object. Duplicate keys are passed as they come, so a setter that keeps
// the last one reads obj as encoding/json does.
func Members(obj []byte, set func(key, val []byte)) bool {
	sc, ok := runtime.ScanObject(obj)
	if !ok {
		return false
	}
	for {
		key, val, more := sc.Next()
		if !more {
			return !sc.Malformed()
		}
		set(key, val)
	}
}

// Member returns the raw value of the first member key of the JSON object
// obj, or nil when obj is not an object or has none. It stops reading at
// that member.
func Member(obj []byte, key string) []byte {
	sc, ok := runtime.ScanObject(obj)
	for ok {
		k, v, more := sc.Next()
		if !more {
			break
		}
		if string(k) == key {
			return v
		}
	}
	return nil
}

// IsNull reports whether the raw value v is absent or JSON null.
func IsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// Envelope holds the raw top-level members of one JSON-RPC message; nil
// means absent.
type Envelope struct {
	JSONRPC, ID, Method, Params, Result, Error []byte
}

// Scan fills e from msg and reports whether msg is a well-formed object.
func (e *Envelope) Scan(msg []byte) bool {
	return Members(msg, func(key, val []byte) {
		switch string(key) {
		case "jsonrpc":
			e.JSONRPC = val
		case "id":
			e.ID = val
		case "method":
			e.Method = val
		case "params":
			e.Params = val
		case "result":
			e.Result = val
		case "error":
			e.Error = val
		}
	})
}

// IsResponse reports whether the message is a response rather than a
// request or a notification.
func (e *Envelope) IsResponse() bool {
	return e.Method == nil && (e.Result != nil || e.Error != nil)
}

// MethodIs reports whether the message's method is name.
func (e *Envelope) MethodIs(name string) bool { return StringIs(e.Method, name) }

// StringIs reports whether the raw JSON value v is the string s. Peers write
// plain strings; one with escapes is decoded to compare.
func StringIs(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == s
	}
	var u string
	return json.Unmarshal(v, &u) == nil && u == s
}

// ParseID parses an id that the clients of these packages send, in a
// response or as a progress token: a positive decimal of at most 18 digits
// (so it fits an int64). Anything else is not theirs.
func ParseID(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, n > 0
}
