package apidoc

import (
	"slices"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

func TestWrapWords(t *testing.T) {
	tests := []struct {
		text  string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"one two three", 7, []string{"one two", "three"}},
		{"one two three", 13, []string{"one two three"}},
		{"a verylongword b", 4, []string{"a", "verylongword", "b"}},
	}
	for _, tt := range tests {
		if got := wrapWords(tt.text, tt.width); !slices.Equal(got, tt.want) {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", tt.text, tt.width, got, tt.want)
		}
	}
}

func TestMarkdownAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"calculator.add":     "calculatoradd",
		"textDocument/hover": "textdocumenthover",
		"Page_Item":          "page_item",
		"a b-c":              "a-b-c",
	} {
		if got := mdAnchor(heading); got != want {
			t.Errorf("mdAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestTypeScriptTypes(t *testing.T) {
	str := &jsonschema.Schema{Type: "string"}
	props := jsonschema.NewProperties()
	props.Set("name", str)
	props.Set("x-y", &jsonschema.Schema{Type: "integer"})
	tests := []struct {
		s    *jsonschema.Schema
		want string
	}{
		{nil, "unknown"},
		{&jsonschema.Schema{}, "unknown"},
		{&jsonschema.Schema{Ref: componentRef("Note")}, "Note"},
		{&jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{str, {Type: "null"}}}}, "(string | null)[]"},
		{&jsonschema.Schema{Type: "string", Enum: []any{"a", "b"}}, `"a" | "b"`},
		{&jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "number"}}, "{ [key: string]: number }"},
		{&jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema}, "Record<string, never>"},
		{&jsonschema.Schema{Type: "object", Properties: props, Required: []string{"name"}, AdditionalProperties: jsonschema.FalseSchema},
			"{\n  name: string;\n  \"x-y\"?: number;\n}"},
	}
	for _, tt := range tests {
		if got := (&tsRenderer{}).tsType(tt.s, ""); got != tt.want {
			t.Errorf("tsType(%s) = %q, want %q", marshalSchemaOrNil(tt.s), got, tt.want)
		}
	}
}

func marshalSchemaOrNil(s *jsonschema.Schema) string {
	if s == nil {
		return "nil"
	}
	return string(schema.Marshal(s))
}
