package mcp

import (
	"bytes"
	"encoding/json"
)

// The client slices the members it needs out of raw replies instead of
// decoding whole envelopes into structs: routing a reply then costs no
// allocations, and only the payload the caller asked for is decoded. The
// scanner never panics; on malformed input it reports failure.

func clientIsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func clientSkipSpace(b []byte, i int) int {
	for i < len(b) && clientIsSpace(b[i]) {
		i++
	}
	return i
}

// clientSkipString returns the index just past the string starting at b[i], or -1.
func clientSkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// clientSkipValue returns the index just past the value starting at b[i], or -1.
func clientSkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return clientSkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := clientSkipString(b, i)
				if j < 0 {
					return -1
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	}
	start := i
	for i < len(b) {
		c := b[i]
		if c == ',' || c == '}' || c == ']' || c == ':' || c == '"' || clientIsSpace(c) {
			break
		}
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// clientObject walks the members of one JSON object.
type clientObject struct {
	b    []byte
	i    int
	more bool // a member was read: the next needs a comma first
	bad  bool
}

// clientOpenObject returns a walker over the object b (surrounding space
// allowed), or false if b does not start like one.
func clientOpenObject(b []byte) (clientObject, bool) {
	i := clientSkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return clientObject{}, false
	}
	return clientObject{b: b, i: i + 1}, true
}

// next returns the next member: its key's raw text without the quotes
// (escapes left in) and its raw value. It returns false at the end, or on
// malformed input, which also sets bad.
func (o *clientObject) next() (key, val []byte, ok bool) {
	b := o.b
	i := clientSkipSpace(b, o.i)
	if i < len(b) && b[i] == '}' {
		o.i = len(b)
		return nil, nil, false
	}
	if o.more {
		if i >= len(b) || b[i] != ',' {
			return o.fail()
		}
		i = clientSkipSpace(b, i+1)
	}
	if i >= len(b) {
		return o.fail()
	}
	if b[i] != '"' {
		return o.fail()
	}
	end := clientSkipString(b, i)
	if end < 0 {
		return o.fail()
	}
	key = b[i+1 : end-1]
	i = clientSkipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return o.fail()
	}
	i = clientSkipSpace(b, i+1)
	end = clientSkipValue(b, i)
	if end < 0 {
		return o.fail()
	}
	o.i = end
	o.more = true
	return key, b[i:end], true
}

func (o *clientObject) fail() ([]byte, []byte, bool) {
	o.bad = true
	o.i = len(o.b)
	return nil, nil, false
}

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
	o, ok := clientOpenObject(msg)
	if !ok {
		return false
	}
	for {
		key, val, ok := o.next()
		if !ok {
			break
		}
		switch {
		case clientKeyIs(key, "id"):
			e.id = val
		case clientKeyIs(key, "method"):
			e.method = val
		case clientKeyIs(key, "params"):
			e.params = val
		case clientKeyIs(key, "result"):
			e.result = val
		case clientKeyIs(key, "error"):
			e.errObj = val
		}
	}
	return !o.bad
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
