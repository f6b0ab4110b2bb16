package apidoc

import (
	"encoding/json"
	"testing"

	"github.com/invopop/jsonschema"
)

// TestExampleNumber: a made-up number is 1 where its bounds allow, not 0,
// which so often means "none" or "no end": a stream's count of 0 runs until
// the caller stops, and the reference's request must end. Bounds that keep
// 1 out are kept.
func TestExampleNumber(t *testing.T) {
	cases := []struct {
		s    jsonschema.Schema
		want json.Number
	}{
		{jsonschema.Schema{Type: "integer"}, "1"},
		{jsonschema.Schema{Type: "integer", Minimum: "-9223372036854775808", Maximum: "9223372036854775807"}, "1"},
		{jsonschema.Schema{Type: "integer", Minimum: "0"}, "1"},
		{jsonschema.Schema{Type: "integer", Minimum: "3"}, "3"},
		{jsonschema.Schema{Type: "integer", ExclusiveMinimum: "4"}, "5"},
		{jsonschema.Schema{Type: "integer", Maximum: "0"}, "0"},
		{jsonschema.Schema{Type: "integer", Maximum: "-2"}, "-2"},
		{jsonschema.Schema{Type: "number", ExclusiveMaximum: "1"}, "0"},
		{jsonschema.Schema{Type: "number", Maximum: "0.5"}, "0"},
	}
	for _, c := range cases {
		if got := exampleNumber(&c.s); got != c.want {
			t.Errorf("exampleNumber(min %q, xmin %q, max %q, xmax %q) = %s, want %s",
				c.s.Minimum, c.s.ExclusiveMinimum, c.s.Maximum, c.s.ExclusiveMaximum, got, c.want)
		}
	}
}
