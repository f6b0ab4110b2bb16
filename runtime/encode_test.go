package runtime_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// TestAppendJSONString checks that every string, invalid UTF-8 included, encodes
// as a JSON string that decodes back to it (invalid bytes as U+FFFD) and holds no
// raw line break, which newline-delimited framing and JavaScript peers rely on.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "nl\n cr\r tab\t", "\x00\x1f\x7f", "é ✓ 𝄞", "bad \xff utf8", "ls\u2028ps\u2029"} {
		got := string(runtime.AppendJSONString(nil, s))
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
