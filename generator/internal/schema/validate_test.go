package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
)

func TestViolation(t *testing.T) {
	u := func(n uint64) *uint64 { return &n }
	listProps := jsonschema.NewProperties()
	listProps.Set("next", &jsonschema.Schema{Ref: "#/$defs/List"})
	listProps.Set("v", &jsonschema.Schema{Type: "number", MultipleOf: "0.5"})
	props := jsonschema.NewProperties()
	props.Set("n", &jsonschema.Schema{Type: "integer", Minimum: "0", Maximum: "9223372036854775807"})
	props.Set("s", &jsonschema.Schema{Type: "string", MinLength: u(2), Pattern: "^[a-z]+$"})
	props.Set("l", &jsonschema.Schema{Ref: "#/$defs/List"})
	props.Set("x", &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Const: 1.0}, {Const: 2.0}}})
	root := &jsonschema.Schema{
		Type: "object", Properties: props, Required: []string{"n"}, AdditionalProperties: jsonschema.FalseSchema,
		Definitions: jsonschema.Definitions{"List": {AnyOf: []*jsonschema.Schema{
			{Type: "object", Properties: listProps},
			{Type: "null"},
		}}},
	}
	for in, want := range map[string]string{
		`{"n":0}`:                         "",
		`{"n":9223372036854775807}`:       "",
		`{"n":9223372036854775808}`:       "at .n: 9223372036854775808 breaks maximum 9223372036854775807",
		`{"n":1.0}`:                       "",
		`{"n":1.5}`:                       "at .n: want integer",
		`{}`:                              `the required member "n" is missing`,
		`{"n":1,"y":2}`:                   `unknown member "y"`,
		`{"n":1,"s":"a"}`:                 "shorter than minLength 2",
		`{"n":1,"s":"AB"}`:                "does not match the pattern",
		`{"n":1,"l":null}`:                "",
		`{"n":1,"l":{"next":{"v":1.5}}}`:  "",
		`{"n":1,"l":{"next":{"v":1.25}}}`: "at .l.next.v: 1.25 is not a multiple of 0.5",
		`{"n":1,"x":2}`:                   "",
		`{"n":1,"x":3}`:                   "matches 0 of oneOf",
		`[1]`:                             "want object",
	} {
		got := Violation(json.RawMessage(in), root)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("Violation(%s) = %q, want %q", in, got, want)
		}
	}
}
