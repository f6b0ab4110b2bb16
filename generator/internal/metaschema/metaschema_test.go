package metaschema

import (
	"fmt"
	"strings"
	"testing"
)

// problems returns "line:col: msg" for each problem of src.
func problems(src string, headers bool) []string {
	n, err := Parse([]byte(src))
	if err != nil {
		pe := err.(*ParseError)
		l, c := Position([]byte(src), pe.Off)
		return []string{fmt.Sprintf("%d:%d: %s", l, c, pe.Msg)}
	}
	ps := Check(n)
	if headers {
		ps = append(ps, CheckHeaders(n)...)
	}
	var out []string
	for _, p := range ps {
		l, c := Position([]byte(src), p.Off)
		out = append(out, fmt.Sprintf("%d:%d: %s", l, c, p.Msg))
	}
	return out
}

// conformanceSchema is the input schema the json-schema-2020-12 scenario
// of the MCP conformance suite expects.
const conformanceSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
    }
  },
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "home": {"$ref": "#addressDef"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string", "x-mcp-header": "Phone"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

func TestValid(t *testing.T) {
	for _, src := range []string{
		conformanceSchema, `true`, `false`, `{}`,
		`{"type":["string","null"],"minLength":0,"maxLength":1.0,"multipleOf":0.5,"x-anything":[1]}`,
		`{"$ref":"#","$defs":{"a~b/c":{"type":"integer"}},"items":{"$ref":"#/$defs/a~0b~1c"}}`,
		`{"prefixItems":[true,{"type":"string"}],"unevaluatedItems":false,"dependentRequired":{"a":["b"]},"$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true}}`,
		`{"properties":{"p":{"type":"object","properties":{"q":{"type":"boolean","x-mcp-header":"Q-1"}}}}}`,
	} {
		if ps := problems(src, true); len(ps) > 0 {
			t.Errorf("%s:\n%s", src, strings.Join(ps, "\n"))
		}
	}
}

func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`{"type": "strin"}`, []string{`1:10: "type" must name array, boolean, integer, null, number, object, string`}},
		{`{"type": []}`, []string{`1:10: "type" must not be an empty array`}},
		{`{"type": ["string", "string"]}`, []string{`1:21: "type" lists "string" twice`}},
		{"{\n  \"minLength\": -1,\n  \"maxItems\": 1.5\n}", []string{`2:16: "minLength" must be an integer, 0 or more`, `3:15: "maxItems" must be an integer, 0 or more`}},
		{`{"multipleOf": 0}`, []string{`1:16: "multipleOf" must be a number greater than 0`}},
		{`{"allOf": []}`, []string{`1:11: "allOf" must not be an empty array`}},
		{`{"anyOf": [1]}`, []string{`1:12: a schema must be an object or a boolean, not a number`}},
		{`{"properties": {"a": "string"}}`, []string{`1:22: a schema must be an object or a boolean, not a string`}},
		{`{"properties": []}`, []string{`1:16: "properties" must be an object of schemas, not an array`}},
		{`{"required": ["a", "a", 3]}`, []string{`1:20: "required" lists "a" twice`, `1:25: "required" must hold only strings, not a number`}},
		{`{"$anchor": "1bad"}`, []string{`1:13: "$anchor" "1bad" is not a plain name (a letter or _ first, then letters, digits, -, _ and .)`}},
		{`{"$id": "x#frag"}`, []string{`1:9: "$id" "x#frag" must not have a fragment (use "$anchor" to name a subschema)`}},
		{`{"$schema": "http://json-schema.org/draft-07/schema#"}`, []string{`1:13: dialect "http://json-schema.org/draft-07/schema#" is not supported: write "https://json-schema.org/draft/2020-12/schema", or leave "$schema" out (2020-12 is MCP's default)`}},
		{`{"items": {"$ref": "#/$defs/missing"}}`, []string{`1:20: reference "#/$defs/missing" does not resolve: the document has no value at /$defs/missing`}},
		{`{"$ref": "#nowhere"}`, []string{`1:10: reference "#nowhere" does not resolve: the document defines no anchor "nowhere"`}},
		{`{"$ref": "https://example.com/s.json"}`, []string{`1:10: reference "https://example.com/s.json" points outside this file: rpcgen resolves only references within it ("#..."), and MCP clients must not fetch others`}},
		{`{"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}}`, []string{`1:52: anchor "x" is defined twice`}},
		{`{"description": 7, "deprecated": "yes"}`, []string{`1:17: "description" must be a string, not a number`, `1:34: "deprecated" must be true or false, not a string`}},
		{`{"a": 1, "a": 2}`, []string{`1:10: member "a" appears twice`}},
		{`{"a": }`, []string{`1:7: invalid character '}' looking for beginning of value`}},
		{"{\"a\": 1", []string{`1:8: unexpected end of the document`}},
		{"{} {}", []string{`1:4: more than one JSON value`}},
		{"{\"a\": \"\xff\"}", []string{`1:8: invalid UTF-8`}},
		// x-mcp-header
		{`{"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}`, []string{`1:57: "x-mcp-header" may only annotate a property of type string, integer or boolean`}},
		{`{"properties": {"a": {"type": "string", "x-mcp-header": ""}}}`, []string{`1:57: "x-mcp-header" must be a non-empty string`}},
		{`{"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}`, []string{"1:57: \"x-mcp-header\" \"A B\" is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)"}},
		{`{"properties": {"a": {"type": "string", "x-mcp-header": "Id"}, "b": {"type": "string", "x-mcp-header": "ID"}}}`, []string{`1:104: "x-mcp-header" "ID" is used twice in this schema (names are compared ignoring case)`}},
		{`{"items": {"type": "string", "x-mcp-header": "A"}}`, []string{`1:46: "x-mcp-header" may only annotate a property reached from the root through "properties" alone`}},
		{`{"x-mcp-header": "A"}`, []string{`1:18: "x-mcp-header" may only annotate a property reached from the root through "properties" alone`}},
		{`{"allOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}`, []string{`1:68: "x-mcp-header" may only annotate a property reached from the root through "properties" alone`}},
	} {
		got := problems(tc.src, true)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

func TestDeep(t *testing.T) {
	src := strings.Repeat(`{"not":`, 300) + `true` + strings.Repeat(`}`, 300)
	if got := problems(src, false); len(got) != 1 || !strings.Contains(got[0], "nested more than 200 deep") {
		t.Errorf("got %q", got)
	}
}
