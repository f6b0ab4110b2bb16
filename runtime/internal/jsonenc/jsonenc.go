// Package jsonenc appends JSON text without reflection, for the runtime's
// packages, which write their messages into buffers rather than marshalling
// envelope structs. It is not for users.
package jsonenc

import (
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonplain"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s encoded as a JSON string to b and returns the
// extended slice. Invalid UTF-8 becomes U+FFFD, as in encoding/json; unlike
// encoding/json it does not escape <, > and &, which are safe in JSON, but it
// does escape U+2028 and U+2029, so that no encoded string holds a line break.
func AppendString[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	// Plain bytes are walked one by one up to next, then passed over by
	// words, as jsonscan's checkString does.
	next := 16
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				if i++; i >= next {
					i = jsonplain.Words(s, i)
					next = i + 8
				}
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		var head [utf8.UTFMax]byte
		r, size := utf8.DecodeRune(head[:copy(head[:], s[i:])])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 end lines in JavaScript source; encoding/json
		// escapes them, and so do we, for peers that split on them.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
