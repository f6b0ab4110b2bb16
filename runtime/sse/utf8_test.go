package sse

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// whatwgDecode is the Encoding Standard's UTF-8 decoder written out step
// by step, as an independent check of appendDecoded and of the Reader.
func whatwgDecode(b []byte) string {
	var out strings.Builder
	var cp rune
	needed, seen := 0, 0
	lower, upper := byte(0x80), byte(0xBF)
	for i := 0; i < len(b); {
		c := b[i]
		if needed == 0 {
			i++
			switch {
			case c <= 0x7F:
				out.WriteByte(c)
			case c >= 0xC2 && c <= 0xDF:
				needed, cp = 1, rune(c&0x1F)
			case c >= 0xE0 && c <= 0xEF:
				if c == 0xE0 {
					lower = 0xA0
				}
				if c == 0xED {
					upper = 0x9F
				}
				needed, cp = 2, rune(c&0xF)
			case c >= 0xF0 && c <= 0xF4:
				if c == 0xF0 {
					lower = 0x90
				}
				if c == 0xF4 {
					upper = 0x8F
				}
				needed, cp = 3, rune(c&0x7)
			default:
				out.WriteRune(utf8.RuneError)
			}
			continue
		}
		if c < lower || c > upper {
			// Error; the byte is processed again as the start of a sequence.
			cp, needed, seen = 0, 0, 0
			lower, upper = 0x80, 0xBF
			out.WriteRune(utf8.RuneError)
			continue
		}
		i++
		lower, upper = 0x80, 0xBF
		cp = cp<<6 | rune(c&0x3F)
		seen++
		if seen == needed {
			out.WriteRune(cp)
			cp, needed, seen = 0, 0, 0
		}
	}
	if needed != 0 {
		out.WriteRune(utf8.RuneError)
	}
	return out.String()
}

func TestAppendDecoded(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"é日🙂", "é日🙂"},
		{"\uFFFD", "\uFFFD"},
		{"\xff", "\uFFFD"},
		{"\x80\x80", "\uFFFD\uFFFD"},
		{"\xc0\xaf", "\uFFFD\uFFFD"},           // overlong: C0 never starts a sequence
		{"\xe0\x80\xaf", "\uFFFD\uFFFD\uFFFD"}, // overlong: E0 80 is not a prefix
		{"\xe2\x82", "\uFFFD"},                 // truncated: one maximal subpart
		{"\xe2\x82a", "\uFFFDa"},
		{"\xf0\x9f\x99", "\uFFFD"},
		{"\xf0\x9f\x99a\xf0\x9f\x99\x82", "\uFFFDa🙂"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // a surrogate
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"\xf5\x80", "\uFFFD\uFFFD"},
		{"a\xc3", "a\uFFFD"},
		{"\xc3\xc3\xa9", "\uFFFDé"},
	}
	for _, tt := range tests {
		if got := string(appendDecoded(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("appendDecoded(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := whatwgDecode([]byte(tt.in)); got != tt.want {
			t.Errorf("whatwgDecode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzAppendDecoded(f *testing.F) {
	for _, s := range []string{"a\xffb", "\xe2\x82a", "\xf0\x9f\x99\x82", "\xed\xa0\x80", "\xf4\x90"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := string(appendDecoded(nil, b)), whatwgDecode(b); got != want {
			t.Errorf("appendDecoded(%q) = %q, want %q", b, got, want)
		}
	})
}
