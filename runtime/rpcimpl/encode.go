package rpcimpl

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// A generated MCP tool or JSON-RPC dispatcher encodes its result with a
// generated function, which appends the JSON to the server's buffer (or a
// pooled Buffer) with no reflection (but for the
// values it leaves to encoding/json: AppendAny) and writes the same bytes
// as encoding/json (AppendResult's json.Encoder, HTML escaping included).
// The functions here are the pieces it calls. A value encoding/json refuses
// (NaN, an infinity, an invalid json.RawMessage or json.Number, a time
// whose year has five digits) makes them panic with a value EncodeFailed
// recognises: the generated code then encodes the whole result again with
// AppendResult (or Result), which returns encoding/json's error.

// encodeFailure is the panic value of a piece that cannot encode its value.
type encodeFailure struct{}

// EncodeFailed reports whether v, what recover returned in a generated
// encoder's deferred function, is the failure of a piece of this file: the
// result is then encoded again with AppendResult. Any other panic (v not
// nil) goes on.
func EncodeFailed(v any) bool {
	if v == nil {
		return false
	}
	if _, ok := v.(encodeFailure); !ok {
		panic(v)
	}
	return true
}

func fail() { panic(encodeFailure{}) }

const hexDigits = "0123456789abcdef"

// safe marks the ASCII bytes a JSON string holds as they are, with
// encoding/json's default HTML escaping: not <, > nor &, no control
// character, quote or backslash.
var safe = func() (s [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		s[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return s
}()

// AppendString appends s as a JSON string, as encoding/json writes it by
// default: <, > and & escaped as \u003c, \u003e and \u0026, U+2028 and
// U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i = skipPlain(s, i); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
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
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendQuotedString appends s as a string field with the ",string" option
// writes it: s as a JSON string, that text as a JSON string again (the
// second time without HTML escaping, as encoding/json). The text holds no
// control character, invalid UTF-8, U+2028 nor U+2029, so the second time
// is jsonenc.AppendString's, which escapes only quotes and backslashes then.
func AppendQuotedString(b []byte, s string) []byte {
	return jsonenc.AppendString(b, AppendString(make([]byte, 0, len(s)+2), s))
}

// skipPlain returns the index of the first 8 bytes of s from i that are
// not all ASCII a JSON string holds as it is, HTML-escaped (none below
// 0x20, from 0x80, nor ", \, <, > or &), or of the last bytes, fewer than
// 8. (The borrows of the subtractions may mark bytes above one that
// matches too, never a word where none does.)
func skipPlain(s string, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		q, bs, lt, gt, amp := x^(lo*'"'), x^(lo*'\\'), x^(lo*'<'), x^(lo*'>'), x^(lo*'&')
		m := x | (x-lo*0x20)&^x | (q-lo)&^q | (bs-lo)&^bs | (lt-lo)&^lt | (gt-lo)&^gt | (amp-lo)&^amp
		if m&hi != 0 {
			break
		}
	}
	return i
}

// AppendFloat64 appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21.
// NaN and the infinities fail (see EncodeFailed).
func AppendFloat64(b []byte, f float64) []byte {
	return appendFloat(b, f, 64)
}

// AppendFloat32 is AppendFloat64 for a float32.
func AppendFloat32(b []byte, f float32) []byte {
	return appendFloat(b, float64(f), 32)
}

func appendFloat(b []byte, f float64, bits int) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		fail()
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendBytes appends p as encoding/json writes a []byte: a string of its
// standard base64 encoding, null for a nil slice.
func AppendBytes(b []byte, p []byte) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, p)
	return append(b, '"')
}

// AppendTime appends t as its MarshalJSON writes it: RFC 3339 with
// nanoseconds, quoted. A year outside [0,9999], or a zone offset of 24
// hours or more, fails (see EncodeFailed), as MarshalJSON does.
func AppendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	n0 := len(b)
	b = t.AppendFormat(b, time.RFC3339Nano)
	num2 := func(b []byte) byte { return 10*(b[0]-'0') + (b[1] - '0') }
	switch {
	case b[n0+len("9999")] != '-':
		fail()
	case b[len(b)-1] != 'Z':
		if c := b[len(b)-len("Z07:00")]; ('0' <= c && c <= '9') || num2(b[len(b)-len("07:00"):]) >= 24 {
			fail()
		}
	}
	return append(b, '"')
}

// AppendRawMessage appends m as encoding/json writes a json.RawMessage:
// null for a nil m, else m compacted, with <, > and & in its strings
// escaped. JSON that is not valid fails (see EncodeFailed).
func AppendRawMessage(b []byte, m json.RawMessage) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	if plainJSON(m) {
		return append(b, m...)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, m); err != nil {
		fail()
	}
	w := bytes.NewBuffer(b)
	json.HTMLEscape(w, buf.Bytes())
	return w.Bytes()
}

// plainJSON reports whether m is valid JSON that encoding/json writes as
// it is: no white space outside strings, nothing HTML escaping changes.
func plainJSON(m []byte) bool {
	inString := false
	for i := 0; i < len(m); i++ {
		switch c := m[i]; {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(m) && m[i+1] == 0x80 && (m[i+2] == 0xA8 || m[i+2] == 0xA9):
			return false
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return false
		}
	}
	return json.Valid(m)
}

// AppendAny appends v as encoding/json writes it (AppendResult's
// json.Encoder, reflection and all): what a generated encoder leaves to
// encoding/json within a result it writes, an interface's value, a type
// with its own MarshalJSON or MarshalText (given by address, so that a
// method on the pointer is called, as encoding/json calls it on a field),
// a recursive type. What encoding/json refuses fails (see EncodeFailed).
func AppendAny(b []byte, v any) []byte {
	a := appenders.Get().(*appender)
	a.b = b
	err := a.enc.Encode(v)
	out := a.b
	a.b = nil
	appenders.Put(a)
	if err != nil {
		fail()
	}
	return out[:len(out)-1] // Encode ends the value with a newline
}

// AppendNumber appends n as encoding/json writes a json.Number: as it is,
// 0 when empty. A number that is not a JSON number fails (see
// EncodeFailed).
func AppendNumber(b []byte, n json.Number) []byte {
	s := string(n)
	if s == "" {
		s = "0"
	}
	if !validNumber(s) {
		fail()
	}
	return append(b, s...)
}

// validNumber reports whether s is a JSON number.
func validNumber(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	digits := func() int {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case digits() == 0:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[1:]
		digits()
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}
