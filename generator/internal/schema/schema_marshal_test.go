package schema

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The schema writer's shortcut for plain strings must write what
// encoding/json writes, without HTML escaping, and leave the rest to it.
func TestSchemaValueMatchesEncodingJSON(t *testing.T) {
	for _, v := range []any{"", "plain text", "a <b> & c", `quote " and \ backslash`, "tab\there", "line\nbreak",
		"\x7f", "é", "\u2028", "bad \xff utf-8", "ctrl \x01", 12, []string{"a", "<b>"}} {
		var w schemaWriter
		w.value(v)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := w.buf.String(); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("value(%q) = %s, want %s", v, got, want.String())
		}
	}
}
