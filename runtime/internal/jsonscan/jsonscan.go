// Package jsonscan slices members and elements out of raw JSON without
// decoding it, so that routing a message or picking a member out of params
// costs no allocation. It serves the runtime's packages and the decoder of
// generated code (runtime/rpcimpl); it is not for users.
//
// Check validates a whole message in one pass (UTF-8, JSON, nesting depth)
// and hands over its top-level members on the way; the other functions expect
// input that Check or json.Valid accepted, and on anything else stop early
// instead of panicking.
package jsonscan

import (
	"bytes"
	"encoding/json"
)

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte of b at or after i that is
// not white space, or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// TrimSpace returns b without leading and trailing white space.
func TrimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && IsSpace(b[i]) {
		i++
	}
	for j > i && IsSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// FirstByte returns the first non-space byte of b, or 0.
func FirstByte(b []byte) byte {
	if i := SkipSpace(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// SkipString returns the index just past the string that starts at b[i] (a
// quote), or -1. Its first bytes are walked one by one (most strings, member
// names, are short); past those it finds each quote with bytes.IndexByte
// (vectorised): a quote ends the string when an even number of backslashes
// comes before it, as an escape takes the byte after its backslash. That is
// the end a byte-by-byte walk finds, on any input (FuzzSkipString).
func SkipString(b []byte, i int) int {
	end := min(len(b), i+1+shortString)
	for i++; i < end; i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	// b[i] is not escaped: a run of backslashes before a quote starts at i
	// at the earliest.
	for j := i; j < len(b); {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		p := q - 1
		for p >= i && b[p] == '\\' {
			p--
		}
		if (q-1-p)%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

// shortString is how many bytes of a string SkipString walks one by one
// before it searches: a call of bytes.IndexByte costs about as much as that.
const shortString = 16

// SkipValue returns the index just past the value that starts at b[i], or -1.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j := SkipString(b, i)
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
		if c == ',' || c == '}' || c == ']' || c == ':' || IsSpace(c) {
			break
		}
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// Cursor walks the members of one JSON object or the elements of one JSON array.
type Cursor struct {
	b     []byte
	i     int
	close byte
	more  bool // an item was read, so a comma must come before the next
	bad   bool // set when the input turned out malformed
}

// OpenObject returns a cursor over the members of the object b, or false if b is not one.
func OpenObject(b []byte) (Cursor, bool) { return open(b, '{', '}') }

// OpenArray returns a cursor over the elements of the array b, or false if b is not one.
func OpenArray(b []byte) (Cursor, bool) { return open(b, '[', ']') }

func open(b []byte, opening, closing byte) (Cursor, bool) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != opening {
		return Cursor{}, false
	}
	return Cursor{b: b, i: i + 1, close: closing}, true
}

// Malformed reports whether the walk stopped on malformed input.
func (c *Cursor) Malformed() bool { return c.bad }

// start skips the separator before the next item and reports whether one follows. A
// missing, leading or trailing comma marks the input malformed.
func (c *Cursor) start() bool {
	i := SkipSpace(c.b, c.i)
	if i < len(c.b) && c.b[i] == c.close {
		c.i = i + 1
		return false
	}
	if c.more {
		if i >= len(c.b) || c.b[i] != ',' {
			c.bad = true
			return false
		}
		i = SkipSpace(c.b, i+1)
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
func (c *Cursor) value() ([]byte, bool) {
	j := SkipValue(c.b, c.i)
	if j < 0 {
		c.bad = true
		return nil, false
	}
	v := c.b[c.i:j]
	c.i = j
	return v, true
}

// NextElem returns the next array element.
func (c *Cursor) NextElem() ([]byte, bool) {
	if !c.start() {
		return nil, false
	}
	return c.value()
}

// NextMember returns the next object member; key is the raw text between the
// quotes (UnescapeKey decodes it).
func (c *Cursor) NextMember() (key, val []byte, ok bool) {
	if !c.start() {
		return nil, nil, false
	}
	if c.b[c.i] != '"' {
		c.bad = true
		return nil, nil, false
	}
	j := SkipString(c.b, c.i)
	if j < 0 {
		c.bad = true
		return nil, nil, false
	}
	key = c.b[c.i+1 : j-1]
	i := SkipSpace(c.b, j)
	if i >= len(c.b) || c.b[i] != ':' {
		c.bad = true
		return nil, nil, false
	}
	c.i = SkipSpace(c.b, i+1)
	val, ok = c.value()
	return key, val, ok
}

// UnescapeKey decodes a member name that contains escapes; rare enough to allocate.
func UnescapeKey(raw []byte) []byte {
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

// CountElems returns the number of elements of the array b, or -1 if b is not an array.
func CountElems(b []byte) int {
	c, ok := OpenArray(b)
	if !ok {
		return -1
	}
	n := 0
	for {
		if _, ok := c.NextElem(); !ok {
			break
		}
		n++
	}
	if c.bad {
		return -1
	}
	return n
}
