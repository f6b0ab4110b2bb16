package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
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
	var st tagState
	for _, item := range splitSchemaTag(raw) {
		item = strings.TrimSpace(item)
		key, val, hasVal := strings.Cut(item, "=")
		if !hasVal {
			switch item {
			case "", "required":
			case "nullable":
				g.tagError(c, item, "nullable is not supported: a nil pointer, slice or map is null already, as encoding/json writes it, and other types have no null")
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
		if err := setKeyword(target, key, val, &st, target != s); err != "" {
			g.tagError(c, item, err)
		}
	}
}

// itemKeyword holds the keys that go to an array field's items.
var itemKeyword = map[string]bool{
	"minLength": true, "maxLength": true, "pattern": true, "format": true, "enum": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
}

// tagError reports a bad tag once, however many schemas hold its field (a
// single struct parameter's type is built both as a component and inlined as
// the params), under the path it was first reached by.
func (g *Builder) tagError(c BuildCtx, item, msg string) {
	key := c.Pos.String() + " tag " + item + " " + msg
	if g.reported[key] {
		g.errCalls++
		return
	}
	if g.reported == nil {
		g.reported = map[string]bool{}
	}
	g.reported[key] = true
	g.Errorf(c.Pos, fmt.Sprintf("%s: jsonschema tag %q: %s", c.Path, item, msg))
}

// tagState is what the keywords of one tag share: whether an enum in it,
// for the field or for its items, has already replaced the constants of
// the field's type.
type tagState struct {
	enumSet, itemEnumSet bool
}

// A keyword is one key a jsonschema tag may set.
type keyword struct {
	kinds []string // the schema types it applies to; nil is any
	// set sets it on s from val, items telling that s is an array field's
	// items; it returns what is wrong with val, or "".
	set func(s *jsonschema.Schema, val string, st *tagState, items bool) string
}

var (
	stringKind  = []string{"string"}
	numberKinds = []string{"integer", "number"}
	arrayKind   = []string{"array"}
	objectKind  = []string{"object"}
)

// keywords holds every key a jsonschema tag may set.
var keywords = map[string]keyword{
	"title":            {nil, func(s *jsonschema.Schema, val string, _ *tagState, _ bool) string { s.Title = val; return "" }},
	"description":      {nil, func(s *jsonschema.Schema, val string, _ *tagState, _ bool) string { s.Description = val; return "" }},
	"format":           {stringKind, func(s *jsonschema.Schema, val string, _ *tagState, _ bool) string { s.Format = val; return "" }},
	"pattern":          {stringKind, setPattern},
	"minLength":        {stringKind, count(func(s *jsonschema.Schema) **uint64 { return &s.MinLength })},
	"maxLength":        {stringKind, count(func(s *jsonschema.Schema) **uint64 { return &s.MaxLength })},
	"minItems":         {arrayKind, count(func(s *jsonschema.Schema) **uint64 { return &s.MinItems })},
	"maxItems":         {arrayKind, count(func(s *jsonschema.Schema) **uint64 { return &s.MaxItems })},
	"minProperties":    {objectKind, count(func(s *jsonschema.Schema) **uint64 { return &s.MinProperties })},
	"maxProperties":    {objectKind, count(func(s *jsonschema.Schema) **uint64 { return &s.MaxProperties })},
	"minimum":          {numberKinds, number(func(s *jsonschema.Schema) *json.Number { return &s.Minimum })},
	"maximum":          {numberKinds, number(func(s *jsonschema.Schema) *json.Number { return &s.Maximum })},
	"exclusiveMinimum": {numberKinds, number(func(s *jsonschema.Schema) *json.Number { return &s.ExclusiveMinimum })},
	"exclusiveMaximum": {numberKinds, number(func(s *jsonschema.Schema) *json.Number { return &s.ExclusiveMaximum })},
	"multipleOf":       {numberKinds, setMultipleOf},
	"uniqueItems":      {arrayKind, flag(func(s *jsonschema.Schema) *bool { return &s.UniqueItems })},
	"readOnly":         {nil, flag(func(s *jsonschema.Schema) *bool { return &s.ReadOnly })},
	"writeOnly":        {nil, flag(func(s *jsonschema.Schema) *bool { return &s.WriteOnly })},
	"deprecated":       {nil, flag(func(s *jsonschema.Schema) *bool { return &s.Deprecated })},
	"enum":             {nil, setEnum},
	"default":          {nil, setDefault},
	"example":          {nil, setExample},
	"examples":         {nil, setExample},
}

// knownKeywords lists the keys of keywords, sorted, for the unknown-key error.
var knownKeywords = func() string {
	keys := make([]string, 0, len(keywords))
	for k := range keywords {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}()

// setKeyword sets one keyword; it returns what is wrong, or "".
func setKeyword(s *jsonschema.Schema, key, val string, st *tagState, items bool) string {
	kw, ok := keywords[key]
	if !ok {
		return "unknown key " + strconv.Quote(key) + " (known: " + knownKeywords + ", and the flag required)"
	}
	if kw.kinds != nil && !slices.Contains(kw.kinds, s.Type) {
		return notApplicable(key, kw.kinds, s.Type, items)
	}
	return kw.set(s, val, st, items)
}

// notApplicable says that key applies to the kinds of schema want, not to
// one of type kind.
func notApplicable(key string, want []string, kind string, items bool) string {
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

func setPattern(s *jsonschema.Schema, val string, _ *tagState, _ bool) string {
	if _, err := regexp.Compile(val); err != nil {
		return fmt.Sprintf("not a valid regular expression: %v", err)
	}
	s.Pattern = val
	return ""
}

// count sets the non-negative integer keyword field points at.
func count(field func(*jsonschema.Schema) **uint64) func(*jsonschema.Schema, string, *tagState, bool) string {
	return func(s *jsonschema.Schema, val string, _ *tagState, _ bool) string {
		n, err := strconv.ParseUint(val, 10, 63)
		if err != nil {
			return fmt.Sprintf("%q is not a non-negative integer", val)
		}
		*field(s) = &n
		return ""
	}
}

// number sets the number keyword field points at.
func number(field func(*jsonschema.Schema) *json.Number) func(*jsonschema.Schema, string, *tagState, bool) string {
	return func(s *jsonschema.Schema, val string, _ *tagState, _ bool) string {
		num, ok := parseNumber(val)
		if !ok {
			return fmt.Sprintf("%q is not a number", val)
		}
		*field(s) = num
		return ""
	}
}

func setMultipleOf(s *jsonschema.Schema, val string, _ *tagState, _ bool) string {
	num, ok := parseNumber(val)
	if !ok {
		return fmt.Sprintf("%q is not a number", val)
	}
	if f, _ := num.Float64(); f <= 0 {
		return "multipleOf must be greater than 0"
	}
	s.MultipleOf = num
	return ""
}

// flag sets the boolean keyword field points at.
func flag(field func(*jsonschema.Schema) *bool) func(*jsonschema.Schema, string, *tagState, bool) string {
	return func(s *jsonschema.Schema, val string, _ *tagState, _ bool) string {
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Sprintf("%q is not true or false", val)
		}
		*field(s) = b
		return ""
	}
}

// setEnum adds a value to the enum; the tag's first replaces the
// constants of the field's type.
func setEnum(s *jsonschema.Schema, val string, st *tagState, items bool) string {
	v, e := typedValue(s, val)
	if e != "" {
		return e
	}
	set := &st.enumSet
	if items {
		set = &st.itemEnumSet
	}
	if !*set {
		s.Enum, *set = nil, true
	}
	s.Enum = append(s.Enum, v)
	return ""
}

// setDefault sets the default; on an array field each default adds an
// element.
func setDefault(s *jsonschema.Schema, val string, _ *tagState, _ bool) string {
	v, e := typedValue(s, val)
	if e != "" {
		return e
	}
	if s.Type == "array" {
		list, _ := s.Default.([]any)
		v = append(list, v)
	}
	s.Default = v
	return ""
}

func setExample(s *jsonschema.Schema, val string, _ *tagState, _ bool) string {
	v, e := typedValue(s, val)
	if e != "" {
		return e
	}
	s.Examples = append(s.Examples, v)
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
