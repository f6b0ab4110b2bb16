package jsonenc

import (
	"encoding/json"
	"strings"
	"testing"
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
