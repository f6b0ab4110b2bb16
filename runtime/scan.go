package runtime

import (
	"bytes"
	"encoding/json"
)

// The functions here slice members and elements out of raw JSON without decoding it, so
// routing a message costs no allocations. They expect input that json.Valid accepted;
// on anything else they stop early instead of panicking.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// firstByte returns the first non-space byte of b, or 0.
func firstByte(b []byte) byte {
	if i := skipSpace(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// skipString returns the index just past the string that starts at b[i], or -1.
func skipString(b []byte, i int) int {
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

// skipValue returns the index just past the value that starts at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := skipString(b, i)
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
	}
	start := i
	for i < len(b) {
		c := b[i]
		if c == ',' || c == '}' || c == ']' || c == ':' || isSpace(c) {
			break
		}
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// depthExceeds reports whether containers in b nest deeper than limit.
func depthExceeds(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			j := skipString(b, i)
			if j < 0 {
				return false
			}
			i = j - 1
		case '{', '[':
			depth++
			if depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// cursor walks the members of one JSON object or the elements of one JSON array.
type cursor struct {
	b     []byte
	i     int
	close byte
	more  bool // an item was read, so a comma must come before the next
	bad   bool // set when the input turned out malformed
}

// openObject returns a cursor over the members of the object b, or false if b is not one.
func openObject(b []byte) (cursor, bool) { return open(b, '{', '}') }

// openArray returns a cursor over the elements of the array b, or false if b is not one.
func openArray(b []byte) (cursor, bool) { return open(b, '[', ']') }

func open(b []byte, opening, closing byte) (cursor, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != opening {
		return cursor{}, false
	}
	return cursor{b: b, i: i + 1, close: closing}, true
}

// start skips the separator before the next item and reports whether one follows. A
// missing, leading or trailing comma marks the input malformed.
func (c *cursor) start() bool {
	i := skipSpace(c.b, c.i)
	if i < len(c.b) && c.b[i] == c.close {
		c.i = i + 1
		return false
	}
	if c.more {
		if i >= len(c.b) || c.b[i] != ',' {
			c.bad = true
			return false
		}
		i = skipSpace(c.b, i+1)
		if i < len(c.b) && c.b[i] == c.close {
			c.bad = true
			return false
		}
	}
	if i >= len(c.b) || c.b[i] == ',' {
		c.bad = true
		return false
	}
	c.i = i
	c.more = true
	return true
}

// value slices the value at the cursor.
func (c *cursor) value() ([]byte, bool) {
	j := skipValue(c.b, c.i)
	if j < 0 {
		c.bad = true
		return nil, false
	}
	v := c.b[c.i:j]
	c.i = j
	return v, true
}

// nextElem returns the next array element.
func (c *cursor) nextElem() ([]byte, bool) {
	if !c.start() {
		return nil, false
	}
	return c.value()
}

// nextMember returns the next object member; key is the raw text between the quotes.
func (c *cursor) nextMember() (key, val []byte, ok bool) {
	if !c.start() {
		return nil, nil, false
	}
	if c.b[c.i] != '"' {
		c.bad = true
		return nil, nil, false
	}
	j := skipString(c.b, c.i)
	if j < 0 {
		c.bad = true
		return nil, nil, false
	}
	key = c.b[c.i+1 : j-1]
	i := skipSpace(c.b, j)
	if i >= len(c.b) || c.b[i] != ':' {
		c.bad = true
		return nil, nil, false
	}
	c.i = skipSpace(c.b, i+1)
	val, ok = c.value()
	return key, val, ok
}

// unescapeKey decodes a member name that contains escapes; rare enough to allocate.
func unescapeKey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return raw
	}
	return []byte(s)
}

// countElems returns the number of elements of the array b, or -1 if b is not an array.
func countElems(b []byte) int {
	c, ok := openArray(b)
	if !ok {
		return -1
	}
	n := 0
	for {
		if _, ok := c.nextElem(); !ok {
			break
		}
		n++
	}
	if c.bad {
		return -1
	}
	return n
}

// ObjectScanner walks the members of one JSON object without decoding it, so a handler
// can pick the members it needs out of its params without allocating.
type ObjectScanner struct{ c cursor }

// ScanObject returns a scanner over the members of the JSON object b (surrounding space
// allowed), or false if b is not an object. b should be valid JSON, as the params a
// Handler receives are; on malformed input the scanner stops early and never panics.
func ScanObject(b []byte) (ObjectScanner, bool) {
	c, ok := openObject(b)
	return ObjectScanner{c: c}, ok
}

// Next returns the next member's name, unescaped, and its raw value, or ok false after
// the last member. Duplicate names are returned as they come.
func (s *ObjectScanner) Next() (name, value []byte, ok bool) {
	key, val, ok := s.c.nextMember()
	if !ok {
		return nil, nil, false
	}
	return unescapeKey(key), val, true
}

// Malformed reports whether the scan stopped on malformed input.
func (s *ObjectScanner) Malformed() bool { return s.c.bad }
