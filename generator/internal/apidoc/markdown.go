package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// renderMarkdown writes the reference page of api (templates/
// reference.md.tmpl): per method its name, description, params table,
// result, errors, and an example request and response, then the shared
// types.
func renderMarkdown(api *apiDoc) ([]byte, error) {
	md := &mdRenderer{components: map[string]*jsonschema.Schema{}}
	for _, c := range api.Components {
		md.components[c.Name] = c.Schema
	}
	funcs := template.FuncMap{
		"anchor":          mdAnchor,
		"type":            mdType,
		"cell":            mdCell,
		"text":            mdText,
		"constraints":     mdConstraints,
		"fields":          mdFields,
		"isObject":        func(s *jsonschema.Schema) bool { return s.Properties != nil && s.Properties.Len() > 0 },
		"variants":        mdVariants,
		"request":         md.request,
		"exampleRequest":  exampleRequest,
		"exampleResponse": exampleResponse,
		"methods":         apiMethods,
		"errors":          apiErrors,
	}
	out, err := render("reference.md.tmpl", funcs, api)
	if err != nil {
		return nil, err
	}
	// Templates leave runs of blank lines where optional parts are absent.
	for bytes.Contains(out, []byte("\n\n\n")) {
		out = bytes.ReplaceAll(out, []byte("\n\n\n"), []byte("\n\n"))
	}
	return append(bytes.TrimSpace(out), '\n'), nil
}

// mdAnchor is the anchor GitHub gives a heading: lower case, letters,
// digits, '-' and '_' kept, spaces as '-', the rest dropped.
func mdAnchor(heading string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			return unicode.ToLower(r)
		}
		return -1
	}, heading)
}

// mdCell makes text fit in a table cell.
func mdCell(text string) string {
	text = strings.ReplaceAll(strings.TrimSpace(text), "|", `\|`)
	return strings.ReplaceAll(text, "\n", "<br>")
}

// mdText keeps a description's paragraphs, and its line breaks within one
// (enum values are described one a line).
func mdText(text string) string {
	paras := strings.Split(strings.TrimSpace(text), "\n\n")
	for i, p := range paras {
		paras[i] = strings.ReplaceAll(p, "\n", "  \n")
	}
	return strings.Join(paras, "\n\n")
}

// mdType is a short type for a table: a component links to its section.
func mdType(s *jsonschema.Schema) string {
	switch {
	case s == nil || s == jsonschema.TrueSchema:
		return "any"
	case s == jsonschema.FalseSchema:
		return "nothing"
	case s.Ref != "":
		name := strings.TrimPrefix(s.Ref, "#/components/schemas/")
		return "[" + name + "](#" + mdAnchor(name) + ")"
	case len(s.AnyOf) > 0 || len(s.OneOf) > 0:
		var parts []string
		for _, x := range append(slices.Clone(s.AnyOf), s.OneOf...) {
			if t := mdType(x); !slices.Contains(parts, t) {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, " or ")
	case len(s.Enum) > 0:
		lits := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			lits[i] = "`" + tsLiteral(v) + "`"
		}
		return strings.Join(lits, ", ")
	case s.Const != nil:
		return "`" + tsLiteral(s.Const) + "`"
	}
	switch s.Type {
	case "":
		return "any"
	case "string":
		switch {
		case s.Format != "":
			return "string (" + s.Format + ")"
		case s.ContentEncoding != "":
			return "string (" + s.ContentEncoding + ")"
		}
	case "integer":
		if name := schema.IntRangeName(string(s.Minimum), string(s.Maximum)); name != "" {
			return "integer (" + name + ")"
		}
	case "array":
		if len(s.PrefixItems) > 0 {
			return "array"
		}
		return "array of " + mdType(s.Items)
	case "object":
		if (s.Properties == nil || s.Properties.Len() == 0) && s.AdditionalProperties != nil && s.AdditionalProperties != jsonschema.FalseSchema {
			return "object of " + mdType(s.AdditionalProperties)
		}
	}
	return s.Type
}

// fullRange reports whether s bounds an integer by exactly the range of a
// Go integer type, which the type column already names ("integer (int64)").
func fullRange(s *jsonschema.Schema) bool {
	return s.Type == "integer" && schema.IntRangeName(string(s.Minimum), string(s.Maximum)) != ""
}

// mdConstraints lists the validation keywords of s a reader should know.
func mdConstraints(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	var c []string
	num := func(name string, v json.Number) {
		if v != "" {
			c = append(c, name+" "+string(v))
		}
	}
	count := func(name string, v *uint64) {
		if v != nil {
			c = append(c, name+" "+strconv.FormatUint(*v, 10))
		}
	}
	if !fullRange(s) {
		num("minimum", s.Minimum)
		num("maximum", s.Maximum)
	}
	num("exclusiveMinimum", s.ExclusiveMinimum)
	num("exclusiveMaximum", s.ExclusiveMaximum)
	num("multipleOf", s.MultipleOf)
	count("minLength", s.MinLength)
	count("maxLength", s.MaxLength)
	if s.Pattern != "" {
		c = append(c, "pattern `"+s.Pattern+"`")
	}
	count("minItems", s.MinItems)
	count("maxItems", s.MaxItems)
	if s.UniqueItems {
		c = append(c, "unique items")
	}
	count("minProperties", s.MinProperties)
	count("maxProperties", s.MaxProperties)
	if len(c) == 0 {
		return ""
	}
	return strings.Join(c, ", ")
}

// mdVariants returns the variants of a union whose every variant is a
// titled object (an MCP content block's), nil for any other schema: each
// gets a table of its own.
func mdVariants(s *jsonschema.Schema) []*jsonschema.Schema {
	for _, v := range s.OneOf {
		if v.Title == "" || v.Properties == nil {
			return nil
		}
	}
	return s.OneOf
}

// mdField is one row of a type's fields table.
type mdField struct {
	Name        string
	Schema      *jsonschema.Schema
	Required    bool
	Description string
}

// mdFields lists the members of an object schema.
func mdFields(s *jsonschema.Schema) []mdField {
	var fields []mdField
	if s.Properties == nil {
		return nil
	}
	for p := s.Properties.Oldest(); p != nil; p = p.Next() {
		fields = append(fields, mdField{Name: p.Key, Schema: p.Value, Required: slices.Contains(s.Required, p.Key), Description: p.Value.Description})
	}
	return fields
}

// mdRenderer makes the examples, which need the components' schemas.
type mdRenderer struct {
	components map[string]*jsonschema.Schema
}

// request is a request of m made from its schemas, indented JSON; "" when
// what it makes up fails the schemas (a pattern it did not follow, say), as
// the reference shows no request the server would refuse.
func (r *mdRenderer) request(m *apiMethod) string {
	msg := orderedJSON{{"jsonrpc", "2.0"}}
	if !m.Notification {
		msg = append(msg, jsonMember{"id", 1})
	}
	msg = append(msg, jsonMember{"method", m.Name})
	if len(m.Params) > 0 {
		params := orderedJSON{}
		for _, p := range m.Params {
			v := r.example(p.Schema, 0)
			if !r.valid(normalJSON(v), p.Schema, 0) {
				return ""
			}
			params = append(params, jsonMember{p.Name, v})
		}
		msg = append(msg, jsonMember{"params", params})
	}
	return indentJSON(msg)
}

// exampleRequest is the request of m's explicit example x, indented JSON.
func exampleRequest(m *apiMethod, x apiExample) string {
	return indentJSON(orderedJSON{{"jsonrpc", "2.0"}, {"id", 1}, {"method", m.Name}, {"params", x.Params}})
}

// exampleResponse is the response of an explicit example, indented JSON.
func exampleResponse(x apiExample) string {
	if x.Error != nil {
		return indentJSON(orderedJSON{{"jsonrpc", "2.0"}, {"id", 1}, {"error", x.Error}})
	}
	return indentJSON(orderedJSON{{"jsonrpc", "2.0"}, {"id", 1}, {"result", x.Result}})
}

// example makes up a value s accepts: its first example, default, enum
// value or const if it has one, else a plain value of its type within its
// bounds. A pattern is not followed.
func (r *mdRenderer) example(s *jsonschema.Schema, depth int) any {
	switch {
	case s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema:
		return nil
	case s.Ref != "":
		if depth > 4 {
			return nil
		}
		return r.example(r.components[strings.TrimPrefix(s.Ref, "#/components/schemas/")], depth+1)
	case len(s.Examples) > 0:
		return s.Examples[0]
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case s.Const != nil:
		return s.Const
	case len(s.AnyOf) > 0:
		for _, x := range s.AnyOf {
			if x.Type != "null" {
				return r.example(x, depth)
			}
		}
		return nil
	}
	return r.exampleOfType(s, depth)
}

// exampleOfType makes up a plain value of s's type.
func (r *mdRenderer) exampleOfType(s *jsonschema.Schema, depth int) any {
	switch s.Type {
	case "string":
		return exampleString(s)
	case "integer", "number":
		return exampleNumber(s)
	case "boolean":
		return false
	case "array":
		return r.exampleArray(s, depth)
	case "object":
		return r.exampleObject(s, depth)
	case "null":
		return nil
	}
	return orderedJSON{}
}

func (r *mdRenderer) exampleArray(s *jsonschema.Schema, depth int) []any {
	n := 1
	if s.MinItems != nil {
		n = max(n, int(*s.MinItems))
	}
	if s.MaxItems != nil {
		n = min(n, int(*s.MaxItems))
	}
	if depth > 4 {
		n = 0
	}
	items := make([]any, 0, n)
	for i := range n {
		if i < len(s.PrefixItems) {
			items = append(items, r.example(s.PrefixItems[i], depth+1))
		} else {
			items = append(items, r.example(s.Items, depth+1))
		}
	}
	return items
}

func (r *mdRenderer) exampleObject(s *jsonschema.Schema, depth int) orderedJSON {
	obj := orderedJSON{}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			if depth > 4 && !slices.Contains(s.Required, p.Key) {
				continue
			}
			obj = append(obj, jsonMember{p.Key, r.example(p.Value, depth+1)})
		}
	} else if ap := s.AdditionalProperties; ap != nil && ap != jsonschema.FalseSchema && depth <= 4 {
		obj = append(obj, jsonMember{"key", r.example(ap, depth+1)})
	}
	return obj
}

func exampleString(s *jsonschema.Schema) string {
	switch {
	case s.Format == "date-time":
		return "2026-01-02T15:04:05Z"
	case s.Format == "date":
		return "2026-01-02"
	case s.ContentEncoding == "base64":
		return "aGVsbG8="
	}
	v := "text"
	if s.MinLength != nil && uint64(len(v)) < *s.MinLength {
		v += strings.Repeat("x", int(*s.MinLength)-len(v))
	}
	if s.MaxLength != nil && uint64(len(v)) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	return v
}

func exampleNumber(s *jsonschema.Schema) json.Number {
	switch {
	case s.Minimum != "":
		if f, err := s.Minimum.Float64(); err == nil && f > 0 {
			return s.Minimum
		}
	case s.ExclusiveMinimum != "":
		if f, err := s.ExclusiveMinimum.Float64(); err == nil && f >= 0 {
			return json.Number(strconv.FormatFloat(f+1, 'f', -1, 64))
		}
	}
	if s.Maximum != "" {
		if f, err := s.Maximum.Float64(); err == nil && f < 0 {
			return s.Maximum
		}
	}
	return "0"
}

// orderedJSON is a JSON object that keeps its members' order.
type orderedJSON []jsonMember

type jsonMember struct {
	key   string
	value any
}

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := jsonText(m.key)
		if err != nil {
			return nil, err
		}
		v, err := jsonText(m.value)
		if err != nil {
			return nil, err
		}
		b.WriteString(k + ":" + v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func indentJSON(v any) string {
	compact, err := jsonText(v)
	if err != nil {
		panic(fmt.Sprintf("rpcgen: example cannot be encoded: %v", err)) // built from schema values, all encodable
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(compact), "", "  "); err != nil {
		panic(fmt.Sprintf("rpcgen: example is not JSON: %v", err))
	}
	return out.String()
}
