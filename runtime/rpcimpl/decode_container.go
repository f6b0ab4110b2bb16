package rpcimpl

import (
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// Object opens an object, whose members are then read with NextKey; anything
// else is an error and makes it return false.
func (d *Decoder) Object() bool {
	switch d.begin() {
	case '{':
		return d.open()
	case 0:
		return false
	}
	d.typeError("an object")
	return false
}

// NextKey reads the key of the next member of the open object into *key and
// reports whether there is one; the caller then reads the member's value. At
// the end of the object it closes it and returns false. *key is valid until
// the next call; it is the unescaped key and may point into the input.
func (d *Decoder) NextKey(key *[]byte) bool {
	if d.stopped || d.pos == 0 {
		return false
	}
	if d.names != nil && d.depth == 1 {
		return d.nextParam(key)
	}
	i, ok := d.next('{', '}', "object member")
	if !ok {
		return false
	}
	if d.buf[i] != '"' {
		d.pos = i
		d.syntaxError("expected a string key")
		return false
	}
	d.pos = i
	if !d.quoted {
		d.start = i
	}
	raw, escaped, ok := d.scanString()
	if !ok {
		return false
	}
	if escaped {
		d.key = appendUnescaped(d.key[:0], raw)
		raw = d.key
	}
	i = jsonscan.SkipSpace(d.buf, d.pos)
	if i >= len(d.buf) || d.buf[i] != ':' {
		d.pos = i
		d.syntaxError("expected ':' after an object key")
		return false
	}
	d.pos = i + 1
	*key = raw
	return true
}

// nextParam is NextKey over params given by position.
func (d *Decoder) nextParam(key *[]byte) bool {
	i, ok := d.next('[', ']', "array element")
	n := len(d.names.keys)
	switch {
	case !ok:
		if !d.stopped && d.index < n {
			d.start = d.root
			d.stop(countMessage(n, d.names, d.index))
		}
		return false
	case d.index >= n:
		d.pos = i
		d.start = d.root
		d.stop(countMessage(n, d.names, d.index+d.countRest()))
		return false
	}
	*key = d.names.keys[d.index]
	d.index++
	d.pos = i
	return true
}

// countRest skips the remaining elements of an array, the first of which
// starts at d.pos, and returns how many there were.
func (d *Decoder) countRest() int {
	n := 0
	for !d.stopped {
		d.Skip()
		n++
		i := jsonscan.SkipSpace(d.buf, d.pos)
		if i >= len(d.buf) || d.buf[i] != ',' {
			break
		}
		d.pos = i + 1
	}
	return n
}

// Array opens an array, whose elements are then read with NextElem; anything
// else is an error and makes it return false.
func (d *Decoder) Array() bool {
	switch d.begin() {
	case '[':
		return d.open()
	case 0:
		return false
	}
	d.typeError("an array")
	return false
}

// NextElem reports whether the open array has another element, which the
// caller then reads; at the end of the array it closes it and returns false.
func (d *Decoder) NextElem() bool {
	if d.stopped || d.pos == 0 {
		return false
	}
	i, ok := d.next('[', ']', "array element")
	if !ok {
		return false
	}
	d.pos = i
	return true
}

// next moves past the separator before the next item of the open container
// and returns where the item starts; at the container's end it closes it.
func (d *Decoder) next(open, close byte, what string) (int, bool) {
	first := d.buf[d.pos-1] == open
	i := jsonscan.SkipSpace(d.buf, d.pos)
	if i >= len(d.buf) {
		d.pos = i
		d.syntaxError("unexpected end of JSON input")
		return 0, false
	}
	if d.buf[i] == close {
		d.pos = i + 1
		d.depth--
		if !d.quoted {
			d.start = i
		}
		return 0, false
	}
	if !first {
		if d.buf[i] != ',' {
			d.pos = i
			d.syntaxError("expected ',' or '" + string(close) + "' after an " + what)
			return 0, false
		}
		i = jsonscan.SkipSpace(d.buf, i+1)
		if i >= len(d.buf) || d.buf[i] == close {
			d.pos = i
			d.syntaxError("expected an " + what + " after ','")
			return 0, false
		}
	}
	if !d.quoted {
		d.start = i
	}
	return i, true
}

// Null reads null and returns true if it comes next; otherwise it reads
// nothing and returns false, leaving the value to the caller.
func (d *Decoder) Null() bool {
	if d.begin() != 'n' {
		return false
	}
	return d.literal("null")
}

// Skip reads and discards the next value, checking that it is well-formed.
func (d *Decoder) Skip() {
	start := d.start
	switch c := d.begin(); {
	case c == 0:
	case c == '{':
		if !d.open() {
			return
		}
		var key []byte
		for d.NextKey(&key) {
			d.Skip()
		}
	case c == '[':
		if !d.open() {
			return
		}
		for d.NextElem() {
			d.Skip()
		}
	case c == '"':
		d.scanString()
	case c == 't':
		d.literal("true")
	case c == 'f':
		d.literal("false")
	case c == 'n':
		d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		d.number("a number")
	default:
		d.syntaxError("invalid character " + strconv.QuoteRune(rune(c)) + " looking for the beginning of a value")
	}
	if !d.stopped && !d.quoted {
		d.start = start
	}
}

// Raw reads the next value and returns its JSON text, which points into the
// input; it checks that the value is well-formed.
func (d *Decoder) Raw() []byte {
	if d.begin() == 0 {
		return nil
	}
	start := d.pos
	d.Skip()
	if d.stopped {
		return nil
	}
	return d.buf[start:d.pos]
}

// begin skips white space before a value and returns the value's first byte,
// or 0 after a problem or at the end of the input (a problem too).
func (d *Decoder) begin() byte {
	if d.stopped {
		return 0
	}
	i := jsonscan.SkipSpace(d.buf, d.pos)
	d.pos = i
	if !d.quoted {
		d.start = i
	}
	switch {
	case i >= len(d.buf):
		d.syntaxError("unexpected end of JSON input")
		return 0
	case d.buf[i] == 0: // 0 means a problem to the callers
		d.syntaxError("invalid character '\\x00' looking for the beginning of a value")
		return 0
	}
	return d.buf[i]
}

// open enters the object or array whose opening bracket is at d.pos.
func (d *Decoder) open() bool {
	if limit := d.maxDepth(); d.depth >= limit {
		d.stop("nested deeper than " + strconv.Itoa(limit) + " levels")
		return false
	}
	d.depth++
	d.pos++
	return true
}

// literal reads the literal word (true, false or null) at d.pos.
func (d *Decoder) literal(word string) bool {
	end := d.pos + len(word)
	if end > len(d.buf) || string(d.buf[d.pos:end]) != word || !endsValue(d.buf, end) {
		d.syntaxError("invalid literal")
		return false
	}
	d.pos = end
	return true
}

// endsValue reports whether a number or literal may end just before b[i].
func endsValue(b []byte, i int) bool {
	if i >= len(b) {
		return true
	}
	switch b[i] {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// maxDepth is how deeply objects and arrays may nest in d's input.
func (d *Decoder) maxDepth() int {
	if d.lenient {
		return maxResultDepth
	}
	return maxDecodeDepth
}
