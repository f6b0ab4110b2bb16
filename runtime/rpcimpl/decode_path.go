package rpcimpl

import (
	"strconv"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// pathAt returns the path of the innermost value in b that holds offset x,
// like `tags[2]` or `author.name`: keys joined by dots, indexes in brackets.
// The value at root is the params, whose path is "". With names set, the
// elements of the params array are named by it. Only b[:x] need be
// well-formed; a Decoder finds the path only when it reports a problem, so
// reading costs nothing to track it.
func pathAt(b []byte, root, x int, names *Fields) string {
	var path []byte
	top := true
	for i := jsonscan.SkipSpace(b, root); i < len(b) && i < x; i = jsonscan.SkipSpace(b, i) {
		open := b[i]
		if open != '{' && open != '[' {
			break // a scalar: x is inside it
		}
		inner, key, n := memberAt(b, i, x)
		if inner < 0 {
			break // x is in this container but in no member's value
		}
		switch {
		case open == '[' && top && names != nil && n < len(names.keys):
			path = appendKey(path, names.keys[n])
		case open == '[':
			path = append(strconv.AppendInt(append(path, '['), int64(n), 10), ']')
		default:
			path = appendKey(path, jsonscan.UnescapeKey(key))
		}
		top = false
		i = inner
	}
	return string(path)
}

func appendKey(path, key []byte) []byte {
	if len(path) > 0 {
		path = append(path, '.')
	}
	return append(path, key...)
}

// memberAt finds the member of the container at b[i] whose value holds x,
// and returns where that value starts, its key (objects) and its index; the
// start is -1 when no member's value holds x.
func memberAt(b []byte, i, x int) (start int, key []byte, index int) {
	j := i + 1
	for n := 0; ; n++ {
		j = jsonscan.SkipSpace(b, j)
		if n > 0 && j < len(b) && b[j] == ',' {
			j = jsonscan.SkipSpace(b, j+1)
		}
		if j >= len(b) || j > x || b[j] == '}' || b[j] == ']' {
			return -1, nil, 0
		}
		if b[i] == '{' {
			k := jsonscan.SkipString(b, j)
			if b[j] != '"' || k < 0 || x < k {
				return -1, nil, 0 // x is at or in a key: the object's own problem
			}
			key = b[j+1 : k-1]
			j = jsonscan.SkipSpace(b, k)
			if j >= len(b) || b[j] != ':' {
				return -1, nil, 0
			}
			j = jsonscan.SkipSpace(b, j+1)
			if x < j {
				return -1, nil, 0
			}
		}
		end := jsonscan.SkipValue(b, j)
		if end < 0 || x < end {
			return j, key, n
		}
		j = end
	}
}

// describe words a JSON value for "got …" in a message: short scalars as
// they were written, anything else by its kind.
func describe(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		if len(v) <= 42 && utf8.Valid(v) {
			return string(v)
		}
		return "a string"
	case 't', 'f', 'n':
		return string(v)
	}
	if len(v) <= 32 {
		return string(v)
	}
	return "a number"
}
