package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

// Violation returns how the JSON value v breaks the schema s, as a path in
// v and a reason ("at .owner.login: want a string, got 5"), or "" when v
// satisfies s. It checks the keywords rpcgen's schemas use (type, enum,
// const, anyOf, oneOf, allOf, not, properties, required,
// additionalProperties, items, prefixItems, the bounds of numbers, strings,
// arrays and objects, pattern, uniqueItems) and follows "$ref"s into the
// root's "$defs"; a keyword it does not know is taken as satisfied, so
// what it reports is a real break. Numbers compare exactly.
func Violation(v json.RawMessage, s *jsonschema.Schema) string {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return "not JSON: " + err.Error()
	}
	c := &checker{root: s}
	return c.check(x, s, "", 0)
}

type checker struct{ root *jsonschema.Schema }

func at(path string) string {
	if path == "" {
		return "the value"
	}
	return "at " + path
}

func (c *checker) check(v any, s *jsonschema.Schema, path string, depth int) string {
	switch {
	case s == nil || s == jsonschema.TrueSchema:
		return ""
	case s == jsonschema.FalseSchema:
		return at(path) + ": no value is allowed here"
	case depth > 64:
		return "" // a recursion this deep is not a documented example's
	}
	if s.Ref != "" {
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		if d := c.root.Definitions[name]; ok && d != nil {
			if msg := c.check(v, d, path, depth+1); msg != "" {
				return msg
			}
		}
	}
	if len(s.AnyOf) > 0 {
		var first string
		for _, x := range s.AnyOf {
			msg := c.check(v, x, path, depth+1)
			if msg == "" {
				first = ""
				break
			}
			if first == "" {
				first = msg
			}
		}
		if first != "" {
			if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" {
				return first // a nullable: say what the value is not
			}
			return at(path) + ": matches none of anyOf (" + first + ")"
		}
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, x := range s.OneOf {
			if c.check(v, x, path, depth+1) == "" {
				n++
			}
		}
		if n != 1 {
			return fmt.Sprintf("%s: matches %d of oneOf, want exactly 1", at(path), n)
		}
	}
	for _, x := range s.AllOf {
		if msg := c.check(v, x, path, depth+1); msg != "" {
			return msg
		}
	}
	if s.Not != nil && c.check(v, s.Not, path, depth+1) == "" {
		return at(path) + ": matches the schema under not"
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return sameJSON(v, e) }) {
		return fmt.Sprintf("%s: %s is not one of the enum %s", at(path), show(v), show(s.Enum))
	}
	if s.Const != nil && !sameJSON(v, s.Const) {
		return fmt.Sprintf("%s: %s is not the const %s", at(path), show(v), show(s.Const))
	}
	if s.Type != "" && !hasType(v, s.Type) {
		return fmt.Sprintf("%s: want %s, got %s", at(path), s.Type, show(v))
	}
	switch x := v.(type) {
	case json.Number:
		return checkNumber(x, s, path)
	case string:
		return checkString(x, s, path)
	case []any:
		return c.checkArray(x, s, path, depth)
	case map[string]any:
		return c.checkObject(x, s, path, depth)
	}
	return ""
}

func hasType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case json.Number:
		if t == "integer" {
			r, ok := new(big.Rat).SetString(string(x))
			return ok && r.IsInt()
		}
		return t == "number"
	case string:
		return t == "string"
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

func checkNumber(x json.Number, s *jsonschema.Schema, path string) string {
	r, ok := new(big.Rat).SetString(string(x))
	if !ok {
		return ""
	}
	bound := func(b json.Number, name string, fails func(cmp int) bool) string {
		if b == "" {
			return ""
		}
		br, ok := new(big.Rat).SetString(string(b))
		if ok && fails(r.Cmp(br)) {
			return fmt.Sprintf("%s: %s breaks %s %s", at(path), x, name, b)
		}
		return ""
	}
	for _, msg := range []string{
		bound(s.Minimum, "minimum", func(c int) bool { return c < 0 }),
		bound(s.Maximum, "maximum", func(c int) bool { return c > 0 }),
		bound(s.ExclusiveMinimum, "exclusiveMinimum", func(c int) bool { return c <= 0 }),
		bound(s.ExclusiveMaximum, "exclusiveMaximum", func(c int) bool { return c >= 0 }),
	} {
		if msg != "" {
			return msg
		}
	}
	if s.MultipleOf != "" {
		m, ok := new(big.Rat).SetString(string(s.MultipleOf))
		if ok && m.Sign() != 0 && !new(big.Rat).Quo(r, m).IsInt() {
			return fmt.Sprintf("%s: %s is not a multiple of %s", at(path), x, s.MultipleOf)
		}
	}
	return ""
}

func checkString(x string, s *jsonschema.Schema, path string) string {
	n := uint64(utf8.RuneCountInString(x))
	if s.MinLength != nil && n < *s.MinLength {
		return fmt.Sprintf("%s: %q is shorter than minLength %d", at(path), x, *s.MinLength)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		return fmt.Sprintf("%s: %q is longer than maxLength %d", at(path), x, *s.MaxLength)
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(x) {
			return fmt.Sprintf("%s: %q does not match the pattern %s", at(path), x, s.Pattern)
		}
	}
	return ""
}

func (c *checker) checkArray(x []any, s *jsonschema.Schema, path string, depth int) string {
	n := uint64(len(x))
	if s.MinItems != nil && n < *s.MinItems {
		return fmt.Sprintf("%s: %d items, fewer than minItems %d", at(path), n, *s.MinItems)
	}
	if s.MaxItems != nil && n > *s.MaxItems {
		return fmt.Sprintf("%s: %d items, more than maxItems %d", at(path), n, *s.MaxItems)
	}
	for i, e := range x {
		item := s.Items
		if i < len(s.PrefixItems) {
			item = s.PrefixItems[i]
		}
		if msg := c.check(e, item, path+"["+strconv.Itoa(i)+"]", depth+1); msg != "" {
			return msg
		}
		if s.UniqueItems && slices.ContainsFunc(x[:i], func(p any) bool { return sameJSON(p, e) }) {
			return fmt.Sprintf("%s: items are not unique", at(path))
		}
	}
	return ""
}

func (c *checker) checkObject(x map[string]any, s *jsonschema.Schema, path string, depth int) string {
	n := uint64(len(x))
	if s.MinProperties != nil && n < *s.MinProperties {
		return fmt.Sprintf("%s: %d members, fewer than minProperties %d", at(path), n, *s.MinProperties)
	}
	if s.MaxProperties != nil && n > *s.MaxProperties {
		return fmt.Sprintf("%s: %d members, more than maxProperties %d", at(path), n, *s.MaxProperties)
	}
	for _, r := range s.Required {
		if _, ok := x[r]; !ok {
			return fmt.Sprintf("%s: the required member %q is missing", at(path), r)
		}
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var p *jsonschema.Schema
		if s.Properties != nil {
			p, _ = s.Properties.Get(k)
		}
		if p == nil {
			if len(s.PatternProperties) > 0 {
				continue // not checked
			}
			p = s.AdditionalProperties
			if p == jsonschema.FalseSchema {
				return fmt.Sprintf("%s: unknown member %q", at(path), k)
			}
		}
		if msg := c.check(x[k], p, path+"."+k, depth+1); msg != "" {
			return msg
		}
	}
	return ""
}

// sameJSON reports whether two decoded JSON values are equal (numbers by
// value, whichever way they were decoded).
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var x, y any
	dx := json.NewDecoder(bytes.NewReader(ja))
	dx.UseNumber()
	dy := json.NewDecoder(bytes.NewReader(jb))
	dy.UseNumber()
	if dx.Decode(&x) != nil || dy.Decode(&y) != nil {
		return false
	}
	return equalNumbers(x, y)
}

func equalNumbers(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equalNumbers)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equalNumbers(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 60 {
		return fmt.Sprintf("%T", v)
	}
	return string(b)
}
