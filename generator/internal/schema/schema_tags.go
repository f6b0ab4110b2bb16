package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// applyTag adds the keywords of a `jsonschema:"…"` struct tag to s, the
// property schema of a field, reporting a bad key or value at c.pos.
//
// The grammar is invopop's: comma-separated items, "\," for a comma inside
// a value; "key=value" items set keywords; a bare "required" makes the field
// required (see jsonField.Required); any other bare item is the description.
// Keys: title, description, format, pattern, minLength, maxLength (strings);
// minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf
// (numbers); minItems, maxItems, uniqueItems (arrays); enum, default,
// example/examples (repeatable: enum and examples collect every occurrence),
// readOnly, writeOnly, deprecated. As in invopop, a keyword that applies to
// strings or numbers goes to the items of an array field ("maxLength=20" on
// []string bounds each string). Values are typed by the schema they land in:
// "enum=1" on an integer is the number 1.
func (g *Builder) applyTag(s *jsonschema.Schema, tag reflect.StructTag, c BuildCtx) {
	raw, ok := tag.Lookup("jsonschema")
	if !ok {
		return
	}
	enumSet, itemEnumSet := false, false
	for _, item := range splitSchemaTag(raw) {
		item = strings.TrimSpace(item)
		key, val, hasVal := strings.Cut(item, "=")
		if !hasVal {
			switch item {
			case "", "required":
			case "nullable":
				g.tagError(c, item, "nullable is not supported: a pointer field is optional instead, and input schemas never allow null")
			default:
				s.Description = item
			}
			continue
		}
		target := s
		if s.Type == "array" && s.Items != nil && itemKeyword[key] {
			if s.Items != jsonschema.TrueSchema && s.Items != jsonschema.FalseSchema {
				s.Items = g.own(s.Items) // s is the caller's, its items may be shared
			}
			target = s.Items
		}
		if err := setKeyword(target, key, val, &enumSet, &itemEnumSet, target != s); err != "" {
			g.tagError(c, item, err)
		}
	}
}

// itemKeyword holds the keys that go to an array field's items.
var itemKeyword = map[string]bool{
	"minLength": true, "maxLength": true, "pattern": true, "format": true, "enum": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
}

func (g *Builder) tagError(c BuildCtx, item, msg string) {
	g.Errorf(c.Pos, fmt.Sprintf("%s: jsonschema tag %q: %s", c.Path, item, msg))
}

// setKeyword sets one keyword; it returns what is wrong, or "".
func setKeyword(s *jsonschema.Schema, key, val string, enumSet, itemEnumSet *bool, items bool) string {
	kind := s.Type
	only := func(want ...string) string {
		for _, w := range want {
			if kind == w {
				return ""
			}
		}
		what := "a " + kind
		switch kind {
		case "":
			what = "a value of any type"
		case "integer", "object", "array":
			what = "an " + kind
		}
		if items {
			what = "the items, " + what
		}
		return fmt.Sprintf("%s applies to %s, not to %s", key, strings.Join(want, " or "), what)
	}
	switch key {
	case "title":
		s.Title = val
	case "description":
		s.Description = val
	case "format":
		if e := only("string"); e != "" {
			return e
		}
		s.Format = val
	case "pattern":
		if e := only("string"); e != "" {
			return e
		}
		if _, err := regexp.Compile(val); err != nil {
			return fmt.Sprintf("not a valid regular expression: %v", err)
		}
		s.Pattern = val
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		want := "string"
		switch {
		case strings.HasSuffix(key, "Items"):
			want = "array"
		case strings.HasSuffix(key, "Properties"):
			want = "object"
		}
		if e := only(want); e != "" {
			return e
		}
		n, err := strconv.ParseUint(val, 10, 63)
		if err != nil {
			return fmt.Sprintf("%q is not a non-negative integer", val)
		}
		switch key {
		case "minLength":
			s.MinLength = &n
		case "maxLength":
			s.MaxLength = &n
		case "minItems":
			s.MinItems = &n
		case "maxItems":
			s.MaxItems = &n
		case "minProperties":
			s.MinProperties = &n
		case "maxProperties":
			s.MaxProperties = &n
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		if e := only("integer", "number"); e != "" {
			return e
		}
		num, ok := parseNumber(val)
		if !ok {
			return fmt.Sprintf("%q is not a number", val)
		}
		switch key {
		case "minimum":
			s.Minimum = num
		case "maximum":
			s.Maximum = num
		case "exclusiveMinimum":
			s.ExclusiveMinimum = num
		case "exclusiveMaximum":
			s.ExclusiveMaximum = num
		case "multipleOf":
			if f, _ := num.Float64(); f <= 0 {
				return "multipleOf must be greater than 0"
			}
			s.MultipleOf = num
		}
	case "uniqueItems", "readOnly", "writeOnly", "deprecated":
		if key == "uniqueItems" {
			if e := only("array"); e != "" {
				return e
			}
		}
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Sprintf("%q is not true or false", val)
		}
		switch key {
		case "uniqueItems":
			s.UniqueItems = b
		case "readOnly":
			s.ReadOnly = b
		case "writeOnly":
			s.WriteOnly = b
		case "deprecated":
			s.Deprecated = b
		}
	case "enum":
		v, e := typedValue(s, val)
		if e != "" {
			return e
		}
		set := enumSet
		if items {
			set = itemEnumSet
		}
		if !*set { // the tag's enum replaces the type's constants
			s.Enum, *set = nil, true
		}
		s.Enum = append(s.Enum, v)
	case "default":
		v, e := typedValue(s, val)
		if e != "" {
			return e
		}
		if s.Type == "array" {
			list, _ := s.Default.([]any)
			v = append(list, v)
		}
		s.Default = v
	case "example", "examples":
		v, e := typedValue(s, val)
		if e != "" {
			return e
		}
		s.Examples = append(s.Examples, v)
	default:
		return "unknown key " + strconv.Quote(key) + " (known: title, description, format, pattern, minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minItems, maxItems, uniqueItems, enum, default, example, readOnly, writeOnly, deprecated, and the flag required)"
	}
	return ""
}

// typedValue parses a tag value as a value of s's type (its items' type for
// an array): a string as is, a number, or true/false.
func typedValue(s *jsonschema.Schema, val string) (any, string) {
	kind := s.Type
	if kind == "array" && s.Items != nil {
		kind = s.Items.Type
	}
	switch kind {
	case "string":
		return val, ""
	case "integer", "number":
		num, ok := parseNumber(val)
		if !ok {
			return nil, fmt.Sprintf("%q is not a number", val)
		}
		if kind == "integer" {
			if _, err := num.Int64(); err != nil {
				return nil, fmt.Sprintf("%q is not an integer", val)
			}
		}
		return num, ""
	case "boolean":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return nil, fmt.Sprintf("%q is not true or false", val)
		}
		return b, ""
	}
	// Objects, any values: the value is JSON.
	var v any
	if err := json.Unmarshal([]byte(val), &v); err != nil {
		return nil, fmt.Sprintf("%q is not JSON, as a value for a schema without a simple type must be", val)
	}
	return v, ""
}

// parseNumber accepts a JSON number.
func parseNumber(val string) (json.Number, bool) {
	var n json.Number
	if err := json.Unmarshal([]byte(val), &n); err != nil || val == "" || val[0] == '"' {
		return "", false
	}
	return n, true
}
