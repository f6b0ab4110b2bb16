package apidoc

import (
	"bytes"
	"encoding/json"
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
		"icons":           iconsText,
		"code":            mdCode,
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
		return "array of " + mdGroup(mdType(s.Items))
	case "object":
		if (s.Properties == nil || s.Properties.Len() == 0) && s.AdditionalProperties != nil && s.AdditionalProperties != jsonschema.FalseSchema {
			return "object of " + mdGroup(mdType(s.AdditionalProperties))
		}
	}
	return s.Type
}

// mdGroup parenthesises a type of several alternatives, so that an array or
// map of nullable values reads "object of (X or null) or null".
func mdGroup(t string) string {
	if strings.Contains(t, " or ") {
		return "(" + t + ")"
	}
	return t
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
	s = schema.NonNull(s) // a nullable's bounds are those of its values
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
