package jsonscan

import (
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonplain"
)

// Status is what Check found.
type Status int

const (
	// Valid: one JSON value of valid UTF-8, nested no deeper than the limit.
	Valid Status = iota
	// Invalid: not JSON (json.Valid would say false) or not UTF-8 (utf8.Valid would).
	Invalid
	// TooDeep: valid, but containers nest deeper than the limit.
	TooDeep
)

// Check walks b once and reports whether it is one JSON value (surrounding white space
// allowed) of valid UTF-8, nested at most 10,000 deep as encoding/json accepts, and
// whether its containers nest deeper than limit: the answer of utf8.Valid, json.Valid
// and a depth count together, Invalid winning over TooDeep. When b holds an object and
// member is not nil, member is called with each of its top-level members' raw key (the
// text between the quotes) and raw value, in order, as the walk reaches them: a caller
// that routes messages by their members needs no second walk. Members may have been
// reported before the walk finds b Invalid.
func Check(b []byte, limit int, member func(key, val []byte)) Status {
	var st stack
	i := SkipSpace(b, 0)
	deep := false
	topObject := i < len(b) && b[i] == '{'
	var keyStart, keyEnd, valStart int
value:
	// i is at the start of a value.
	if i >= len(b) {
		return Invalid
	}
	switch c := b[i]; c {
	case '{', '[':
		st.push(c == '{')
		if st.depth > maxNesting {
			return Invalid
		}
		if st.depth > limit {
			deep = true
		}
		i = SkipSpace(b, i+1)
		if c == '{' {
			if i < len(b) && b[i] == '}' {
				st.pop()
				i++
				goto after
			}
			goto key
		}
		if i < len(b) && b[i] == ']' {
			st.pop()
			i++
			goto after
		}
		if st.depth == 1 {
			valStart = i
		}
		goto value
	case '"':
		if i = checkString(b, i); i < 0 {
			return Invalid
		}
	case 't':
		if i = literal(b, i, "true"); i < 0 {
			return Invalid
		}
	case 'f':
		if i = literal(b, i, "false"); i < 0 {
			return Invalid
		}
	case 'n':
		if i = literal(b, i, "null"); i < 0 {
			return Invalid
		}
	default:
		if i = checkNumber(b, i); i < 0 {
			return Invalid
		}
	}
after:
	// A value ended just before i.
	if st.depth == 0 {
		if SkipSpace(b, i) != len(b) {
			return Invalid
		}
		if deep {
			return TooDeep
		}
		return Valid
	}
	if st.depth == 1 && topObject && member != nil {
		member(b[keyStart:keyEnd], b[valStart:i])
	}
	i = SkipSpace(b, i)
	if i >= len(b) {
		return Invalid
	}
	if st.inObject() {
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
			goto key
		case '}':
			st.pop()
			i++
			goto after
		}
		return Invalid
	}
	switch b[i] {
	case ',':
		i = SkipSpace(b, i+1)
		if st.depth == 1 {
			valStart = i
		}
		goto value
	case ']':
		st.pop()
		i++
		goto after
	}
	return Invalid
key:
	// i is where a member's name must start.
	if i >= len(b) || b[i] != '"' {
		return Invalid
	}
	j := checkString(b, i)
	if j < 0 {
		return Invalid
	}
	if st.depth == 1 {
		keyStart, keyEnd = i+1, j-1
	}
	i = SkipSpace(b, j)
	if i >= len(b) || b[i] != ':' {
		return Invalid
	}
	i = SkipSpace(b, i+1)
	if st.depth == 1 {
		valStart = i
	}
	goto value
}

// maxNesting is the deepest nesting encoding/json accepts: json.Valid says
// false beyond it, and so does Check.
const maxNesting = 10000

// stack records, for each open container, whether it is an object: a bit per level,
// in place up to 1024 levels and on the heap beyond (bounded by the input's size).
type stack struct {
	depth int
	small [16]uint64
	big   []uint64
}

func (s *stack) push(object bool) {
	w, bit := s.depth/64, uint64(1)<<(s.depth%64)
	s.depth++
	words := s.small[:]
	if w >= len(words) {
		for len(s.big) <= w-len(s.small) {
			s.big = append(s.big, 0)
		}
		words, w = s.big, w-len(s.small)
	}
	if object {
		words[w] |= bit
	} else {
		words[w] &^= bit
	}
}

func (s *stack) pop() { s.depth-- }

// inObject reports whether the innermost open container is an object.
func (s *stack) inObject() bool {
	d := s.depth - 1
	w, bit := d/64, uint64(1)<<(d%64)
	if w < len(s.small) {
		return s.small[w]&bit != 0
	}
	return s.big[w-len(s.small)]&bit != 0
}

// checkString returns the index just past the valid string starting at b[i], or -1:
// no control characters, only JSON's escapes, UTF-8 throughout.
func checkString(b []byte, i int) int {
	// Plain bytes are walked one by one up to next, then passed over by
	// words (jsonplain.Words), which stops within a word of a byte that is not
	// plain: a short string (most are) costs no search of words, a long one
	// a search every eight bytes walked at most.
	next := i + 1 + shortString
	for i++; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(b) {
				return -1
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		case c < utf8.RuneSelf:
			if i++; i >= next {
				i = jsonplain.Words(b, i)
				next = i + 8
			}
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return -1
			}
			i += n
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// literal returns the index just past word at b[i], or -1 if it is not there.
func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// checkNumber returns the index just past the JSON number starting at b[i], or -1.
// What follows it is the caller's to check.
func checkNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// IsJSON reports whether b is one JSON value of valid UTF-8, as utf8.Valid and
// json.Valid together would, in one pass and whatever its depth.
func IsJSON(b []byte) bool { return Check(b, int(^uint(0)>>1), nil) != Invalid }
