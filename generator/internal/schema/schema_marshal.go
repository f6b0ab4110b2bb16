package schema

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"github.com/invopop/jsonschema"
)

// Marshal renders s as compact JSON, deterministically, with no
// trailing newline.
//
// It does not use invopop's MarshalJSON, for two reasons: that renders an
// empty schema (any value) as the boolean schema true, which is valid but
// which some MCP hosts do not accept, where this renders {}; and it orders
// keys as the struct declares them, with "type" after "properties", where
// this writes a schema the way one reads it: identity, description, type,
// type-specific keywords, then members, annotations and "$defs" last. Map
// keywords ($defs, patternProperties, Extras...) are sorted; "properties"
// keeps its insertion order, which is the Go field order.
func Marshal(s *jsonschema.Schema) []byte {
	var w schemaWriter
	w.schema(s)
	return w.buf.Bytes()
}

// Pretty renders s indented by two spaces, with a final newline, for
// the files --schema-dir writes.
func Pretty(s *jsonschema.Schema) []byte {
	var out bytes.Buffer
	if err := json.Indent(&out, Marshal(s), "", "  "); err != nil {
		panic("rpcgen: invalid schema JSON: " + err.Error()) // marshalSchema writes valid JSON
	}
	out.WriteByte('\n')
	return out.Bytes()
}

type schemaWriter struct {
	buf   bytes.Buffer
	comma bool          // a member was written in the current object
	enc   *json.Encoder // writes to buf; nil until value needs it
}

// emptySchema is the schema with no keyword, which accepts any value.
var emptySchema jsonschema.Schema

// isEmptySchema reports whether s has no keyword. The fields tested first
// are set on nearly every schema, and comparing them is much cheaper than
// comparing the whole struct.
func isEmptySchema(s *jsonschema.Schema) bool {
	if s.Type != "" || s.Ref != "" || s.Description != "" || s.Properties != nil || s.Items != nil || s.AnyOf != nil {
		return false
	}
	return reflect.DeepEqual(s, &emptySchema)
}

func (w *schemaWriter) key(k string) {
	if w.comma {
		w.buf.WriteByte(',')
	}
	w.comma = true
	w.value(k)
	w.buf.WriteByte(':')
}

// value writes v as JSON without HTML escaping.
func (w *schemaWriter) value(v any) {
	if s, ok := v.(string); ok && plainString(s) {
		// What encoding/json writes for it, without its reflection.
		w.buf.WriteByte('"')
		w.buf.WriteString(s)
		w.buf.WriteByte('"')
		return
	}
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.buf)
		w.enc.SetEscapeHTML(false)
	}
	if err := w.enc.Encode(v); err != nil {
		panic("rpcgen: schema value cannot be encoded: " + err.Error()) // values come from go/types and tags, all encodable
	}
	w.buf.Truncate(w.buf.Len() - 1) // Encode's newline
}

func (w *schemaWriter) str(k, v string) {
	if v != "" {
		w.key(k)
		w.value(v)
	}
}

func (w *schemaWriter) num(k string, v json.Number) {
	if v != "" {
		w.key(k)
		w.buf.WriteString(string(v))
	}
}

func (w *schemaWriter) uint(k string, v *uint64) {
	if v != nil {
		w.key(k)
		w.value(*v)
	}
}

func (w *schemaWriter) flag(k string, v bool) {
	if v {
		w.key(k)
		w.buf.WriteString("true")
	}
}

func (w *schemaWriter) any(k string, v any) {
	if v != nil {
		w.key(k)
		w.value(v)
	}
}

func (w *schemaWriter) sub(k string, s *jsonschema.Schema) {
	if s != nil {
		w.key(k)
		w.schema(s)
	}
}

func (w *schemaWriter) list(k string, l []*jsonschema.Schema) {
	if len(l) == 0 {
		return
	}
	w.key(k)
	w.buf.WriteByte('[')
	for i, s := range l {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		w.schema(s)
	}
	w.buf.WriteByte(']')
}

func (w *schemaWriter) schemaMap(k string, m map[string]*jsonschema.Schema) {
	if len(m) == 0 {
		return
	}
	w.key(k)
	w.buf.WriteByte('{')
	w.comma = false
	for _, name := range slices.Sorted(maps.Keys(m)) {
		w.key(name)
		w.schema(m[name])
	}
	w.buf.WriteByte('}')
	w.comma = true
}

func (w *schemaWriter) schema(s *jsonschema.Schema) {
	switch {
	case s == jsonschema.TrueSchema:
		w.buf.WriteString("true")
		return
	case s == jsonschema.FalseSchema:
		w.buf.WriteString("false")
		return
	case isEmptySchema(s):
		w.buf.WriteString("{}")
		return
	}
	outer := w.comma
	w.buf.WriteByte('{')
	w.comma = false

	w.str("$schema", s.Version)
	w.str("$id", string(s.ID))
	w.str("$ref", s.Ref)
	w.str("$dynamicRef", s.DynamicRef)
	w.str("$anchor", s.Anchor)
	w.str("$comment", s.Comments)
	w.str("title", s.Title)
	w.str("description", s.Description)
	w.str("type", s.Type)
	w.str("format", s.Format)
	w.str("contentEncoding", s.ContentEncoding)
	w.str("contentMediaType", s.ContentMediaType)
	w.sub("contentSchema", s.ContentSchema)
	w.any("const", s.Const)
	if len(s.Enum) > 0 {
		w.key("enum")
		w.value(s.Enum)
	}
	w.num("multipleOf", s.MultipleOf)
	w.num("minimum", s.Minimum)
	w.num("exclusiveMinimum", s.ExclusiveMinimum)
	w.num("maximum", s.Maximum)
	w.num("exclusiveMaximum", s.ExclusiveMaximum)
	w.uint("minLength", s.MinLength)
	w.uint("maxLength", s.MaxLength)
	w.str("pattern", s.Pattern)
	w.list("prefixItems", s.PrefixItems)
	w.sub("items", s.Items)
	w.sub("contains", s.Contains)
	w.uint("minItems", s.MinItems)
	w.uint("maxItems", s.MaxItems)
	w.flag("uniqueItems", s.UniqueItems)
	w.uint("minContains", s.MinContains)
	w.uint("maxContains", s.MaxContains)
	if s.Properties != nil && s.Properties.Len() > 0 {
		w.key("properties")
		w.buf.WriteByte('{')
		w.comma = false
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			w.key(p.Key)
			w.schema(p.Value)
		}
		w.buf.WriteByte('}')
		w.comma = true
	}
	w.schemaMap("patternProperties", s.PatternProperties)
	w.sub("additionalProperties", s.AdditionalProperties)
	w.sub("propertyNames", s.PropertyNames)
	if s.Required != nil {
		w.key("required")
		w.value(s.Required)
	}
	w.uint("minProperties", s.MinProperties)
	w.uint("maxProperties", s.MaxProperties)
	if len(s.DependentRequired) > 0 {
		w.key("dependentRequired")
		w.value(s.DependentRequired) // encoding/json sorts map keys
	}
	w.schemaMap("dependentSchemas", s.DependentSchemas)
	w.list("allOf", s.AllOf)
	w.list("anyOf", s.AnyOf)
	w.list("oneOf", s.OneOf)
	w.sub("not", s.Not)
	w.sub("if", s.If)
	w.sub("then", s.Then)
	w.sub("else", s.Else)
	w.any("default", s.Default)
	if len(s.Examples) > 0 {
		w.key("examples")
		w.value(s.Examples)
	}
	w.flag("deprecated", s.Deprecated)
	w.flag("readOnly", s.ReadOnly)
	w.flag("writeOnly", s.WriteOnly)
	for _, k := range slices.Sorted(maps.Keys(s.Extras)) {
		w.any(k, s.Extras[k])
	}
	w.schemaMap("$defs", s.Definitions)

	w.buf.WriteByte('}')
	w.comma = outer
}

// plainString reports whether s is printable ASCII with no quote or
// backslash: a string encoding/json writes between quotes as it is.
func plainString(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
