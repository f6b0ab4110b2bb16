package jsonenc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppendString checks that every string, invalid UTF-8 included, encodes
// as a JSON string that decodes back to it (invalid bytes as U+FFFD) and holds
// no raw line break, which newline-delimited framing and JavaScript peers rely
// on.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "nl\n cr\r tab\t", "\x00\x1f\x7f", "é ✓ 𝄞", "bad \xff utf8", "ls\u2028ps\u2029"} {
		got := string(AppendString(nil, s))
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("%q encodes as %s: %v", s, got, err)
			continue
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Errorf("%q round-trips as %q", s, back)
		}
		if strings.ContainsAny(got, "\n\r\u2028\u2029") {
			t.Errorf("%q encodes with a raw line break: %s", s, got)
		}
	}
}

// TestAppendStringBytes checks the exact encoding, of a string and of the
// same bytes appended after what dst holds.
func TestAppendStringBytes(t *testing.T) {
	for in, want := range map[string]string{"a\"b\\\n\x01é": `"a\"b\\\n\u0001é"`, "bad\xffutf8": `"bad\ufffdutf8"`, "<&>": `"<&>"`, "\u2028": `"\u2028"`} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("string %q: got %s, want %s", in, got, want)
		}
		if got := string(AppendString([]byte("x"), []byte(in))); got != "x"+want {
			t.Errorf("bytes %q: got %s, want x%s", in, got, want)
		}
	}
}

// appendStringBytewise is AppendString as it was before it passed over
// plain words eight bytes at a time: the reference FuzzAppendString holds it to.
func appendStringBytewise(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
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

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s", "nl\n cr\r tab\t", "\x00\x1f\x7f", "é ✓ 𝄞", "bad \xff utf8", "ls\u2028ps\u2029",
		"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "io.modelcontextprotocol/protocolVersion\"0123456789\\abcdef\u2028ghijklmn"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := string(appendStringBytewise([]byte("x"), s))
		if got := string(AppendString([]byte("x"), s)); got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got := string(AppendString([]byte("x"), []byte(s))); got != want {
			t.Fatalf("AppendString([]byte(%q)) = %s, want %s", s, got, want)
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	buf := make([]byte, 0, 128)
	for b.Loop() {
		buf = AppendString(buf[:0], "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	}
}
