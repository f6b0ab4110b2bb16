package otel

import (
	"bytes"
	"encoding/json"
)

// objectScan walks the members of a JSON object as runtime.ScanObject does,
// for the few members of params and _meta the middleware reads, but skips
// strings with bytes.IndexByte (vectorised) rather than byte by byte: most
// of what it walks is strings (the _meta keys io.modelcontextprotocol/...,
// traceparent's value). It stops at the first malformed byte; a key with an
// escape is unescaped.
type objectScan struct {
	b []byte
	i int
}

// scanObject starts a walk of the object b, false if b is no object.
func scanObject(b []byte) (objectScan, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return objectScan{}, false
	}
	return objectScan{b: b, i: i + 1}, true
}

// next returns the next member's key, unescaped, and its raw value; ok is
// false after the last member or on malformed input.
func (s *objectScan) next() (key, val []byte, ok bool) {
	b := s.b
	i := skipSpace(b, s.i)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	if i >= len(b) || b[i] != '"' {
		s.i = len(b)
		return nil, nil, false
	}
	end, escaped := skipString(b, i)
	if end < 0 {
		s.i = len(b)
		return nil, nil, false
	}
	key = b[i+1 : end-1]
	if escaped {
		var k string
		if json.Unmarshal(b[i:end], &k) != nil {
			s.i = len(b)
			return nil, nil, false
		}
		key = []byte(k)
	}
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		s.i = len(b)
		return nil, nil, false
	}
	i = skipSpace(b, i+1)
	end = skipValue(b, i)
	if end < 0 {
		s.i = len(b)
		return nil, nil, false
	}
	s.i = end
	return key, b[i:end], true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] (a
// quote), or -1, and whether it has an escape.
func skipString(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1, false
		}
		q := j + k
		n := 0 // backslashes before the quote
		for q-1-n > i && b[q-1-n] == '\\' {
			n++
		}
		if n > 0 {
			escaped = true
		}
		if n%2 == 0 {
			if !escaped && bytes.IndexByte(b[i+1:q], '\\') >= 0 {
				escaped = true
			}
			return q + 1, escaped
		}
		j = q + 1
	}
	return -1, false
}

// skipValue returns the index just past the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		end, _ := skipString(b, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, _ := skipString(b, i)
				if end < 0 {
					return -1
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\n', '\t', '\r':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	if j == i {
		return -1
	}
	return j
}
