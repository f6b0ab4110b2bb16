package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime"
)

// The client slices the members it needs out of raw replies instead of
// decoding whole envelopes into structs: routing a reply then costs no
// allocations, and only the payload the caller asked for is decoded. The
// scanner never panics; on malformed input it reports failure.

// clientKeyIs reports whether the raw key equals name; keys with escapes are
// unescaped first (rare: servers write plain keys).
func clientKeyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == name
	}
	q := make([]byte, 0, len(key)+2)
	q = append(append(append(q, '"'), key...), '"')
	var s string
	return json.Unmarshal(q, &s) == nil && s == name
}

// clientEnvelope holds the raw top-level members of one JSON-RPC message; nil
// means absent.
type clientEnvelope struct {
	id, method, params, result, errObj []byte
}

// parse fills e from msg and reports whether msg is a well-formed object.
func (e *clientEnvelope) parse(msg []byte) bool {
	o, ok := runtime.ScanObject(msg)
	if !ok {
		return false
	}
	for {
		key, val, ok := o.Next()
		if !ok {
			break
		}
		switch {
		case string(key) == "id":
			e.id = val
		case string(key) == "method":
			e.method = val
		case string(key) == "params":
			e.params = val
		case string(key) == "result":
			e.result = val
		case string(key) == "error":
			e.errObj = val
		}
	}
	return !o.Malformed()
}

// isResponse reports whether e is a response rather than a request or notification.
func (e *clientEnvelope) isResponse() bool {
	return e.method == nil && (e.result != nil || e.errObj != nil)
}

// methodIs reports whether e's method is name.
func (e *clientEnvelope) methodIs(name string) bool {
	m := e.method
	return len(m) >= 2 && m[0] == '"' && clientKeyIs(m[1:len(m)-1], name)
}

// clientIsNull reports whether the raw value v is absent or JSON null.
func clientIsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// clientParseID parses a response id this client sent: a positive decimal
// integer, as the raw JSON number.
func clientParseID(v []byte) (int64, bool) {
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

// clientStringIs reports whether the raw JSON value v is the string s.
func clientStringIs(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	return clientKeyIs(v[1:len(v)-1], s)
}
