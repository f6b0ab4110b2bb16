package rpcimpl

import (
	"encoding/base64"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// String reads a string.
func (d *Decoder) String() string {
	if c := d.begin(); c != '"' {
		if c != 0 {
			d.typeError("a string")
		}
		return ""
	}
	raw, escaped, ok := d.scanString()
	if !ok {
		return ""
	}
	if escaped {
		var tmp [64]byte
		return string(appendUnescaped(tmp[:0], raw))
	}
	return string(raw)
}

// scanString reads the string starting at d.pos and returns what is between
// its quotes, and whether that holds escapes. It checks escapes, control
// characters and UTF-8.
func (d *Decoder) scanString() (raw []byte, escaped bool, ok bool) {
	b := d.buf
	i := d.pos + 1
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			raw, d.pos = b[d.pos+1:i], i+1
			return raw, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				i = len(b)
				break
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(b, i+2); !ok {
					d.pos = i
					d.syntaxError(`invalid \u escape in a string`)
					return nil, false, false
				}
				i += 6
			default:
				d.pos = i
				d.syntaxError("invalid escape " + strconv.Quote(string(b[i:i+2])) + " in a string")
				return nil, false, false
			}
		case c < 0x20:
			d.pos = i
			d.syntaxError("control character in a string")
			return nil, false, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				d.pos = i
				d.stop("invalid UTF-8 in a string")
				return nil, false, false
			}
			i += size
		}
	}
	d.pos = len(b)
	d.syntaxError("unexpected end of JSON input in a string")
	return nil, false, false
}

// hex4 decodes the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendUnescaped appends the string content raw, which scanString checked,
// with its escapes decoded. A surrogate pair becomes one character; a lone
// surrogate becomes U+FFFD.
func appendUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := i + 1
			for j < len(raw) && raw[j] != '\\' {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
			continue
		}
		switch c = raw[i+1]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(raw, i+2)
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2, ok = hex4(raw, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, c)
		}
		i += 2
	}
	return dst
}

// Bytes reads a base64 string (standard encoding, padded), as encoding/json
// writes a []byte; null reads as nil.
func (d *Decoder) Bytes() []byte {
	if c := d.begin(); c != '"' {
		if c == 'n' {
			d.literal("null")
		} else if c != 0 {
			d.typeError("a base64 string")
		}
		return nil
	}
	start := d.pos
	raw, escaped, ok := d.scanString()
	if !ok {
		return nil
	}
	if escaped {
		raw = appendUnescaped(nil, raw)
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Decode(out, raw)
	if err != nil {
		d.fail("expected a base64 string, got " + describe(d.buf[start:d.pos]))
		return nil
	}
	return out[:n]
}

// Time reads an RFC 3339 date-time string, as encoding/json reads a
// time.Time.
func (d *Decoder) Time() time.Time {
	if d.lenient && d.begin() == 'n' {
		d.literal("null") // encoding/json leaves the time as it is
		return time.Time{}
	}
	start := d.pos
	s := d.String()
	if d.stopped {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		d.fail("expected a date-time string (RFC 3339), got " + describe(jsonscan.TrimSpace(d.buf[start:d.pos])))
	}
	return t
}

// OpenQuoted starts reading a value that is written inside a JSON string,
// as encoding/json's ",string" option has it (`"42"`, `"true"`); the value
// is then read as usual and CloseQuoted ends it. It returns false after a
// problem.
func (d *Decoder) OpenQuoted() bool {
	if c := d.begin(); c != '"' {
		if c != 0 {
			d.typeError("a string holding the value")
		}
		return false
	}
	raw, escaped, ok := d.scanString()
	if !ok {
		return false
	}
	if escaped {
		raw = appendUnescaped(nil, raw)
	}
	d.outer, d.outerPos, d.quoted = d.buf, d.pos, true
	d.buf, d.pos = raw, 0
	return true
}

// CloseQuoted ends a value OpenQuoted started; the string must hold nothing
// else.
func (d *Decoder) CloseQuoted() {
	if !d.quoted {
		return
	}
	rest := jsonscan.SkipSpace(d.buf, d.pos) < len(d.buf)
	d.buf, d.pos, d.quoted = d.outer, d.outerPos, false
	if rest {
		d.fail("expected a string holding only the value")
	}
}
