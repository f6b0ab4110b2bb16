package apidoc

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

// valid reports whether the JSON value v (as encoding/json decodes into
// any) is one s accepts, for the keywords rpcgen's schemas use: a made-up
// example the reference shows must be a request the server takes. A
// keyword it does not check makes it answer false, so an example it cannot
// vouch for is left out.
func (r *mdRenderer) valid(v any, s *jsonschema.Schema, depth int) bool {
	switch {
	case s == nil || s == jsonschema.TrueSchema:
		return true
	case s == jsonschema.FalseSchema || depth > 16:
		return false
	case s.Ref != "":
		c := r.components[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
		return c != nil && r.valid(v, c, depth+1)
	case s.Not != nil || s.If != nil || len(s.AllOf) > 0 || len(s.DependentRequired) > 0 || len(s.PatternProperties) > 0:
		return false
	}
	if len(s.AnyOf) > 0 && !slices.ContainsFunc(s.AnyOf, func(x *jsonschema.Schema) bool { return r.valid(v, x, depth+1) }) {
		return false
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, x := range s.OneOf {
			if r.valid(v, x, depth+1) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return sameValue(v, e) }) {
		return false
	}
	if s.Const != nil && !sameValue(v, s.Const) {
		return false
	}
	switch x := v.(type) {
	case nil:
		return s.Type == "" || s.Type == "null"
	case bool:
		return s.Type == "" || s.Type == "boolean"
	case float64:
		return r.validNumber(x, s)
	case string:
		return (s.Type == "" || s.Type == "string") && validString(x, s)
	case []any:
		return (s.Type == "" || s.Type == "array") && r.validArray(x, s, depth)
	case map[string]any:
		return (s.Type == "" || s.Type == "object") && r.validObject(x, s, depth)
	}
	return false
}

func (r *mdRenderer) validNumber(x float64, s *jsonschema.Schema) bool {
	switch s.Type {
	case "", "number":
	case "integer":
		if x != math.Trunc(x) {
			return false
		}
	default:
		return false
	}
	bound := func(n json.Number, ok func(b float64) bool) bool {
		if n == "" {
			return true
		}
		b, err := n.Float64()
		return err == nil && ok(b)
	}
	return bound(s.Minimum, func(b float64) bool { return x >= b }) &&
		bound(s.Maximum, func(b float64) bool { return x <= b }) &&
		bound(s.ExclusiveMinimum, func(b float64) bool { return x > b }) &&
		bound(s.ExclusiveMaximum, func(b float64) bool { return x < b }) &&
		bound(s.MultipleOf, func(b float64) bool { return b > 0 && math.Abs(x/b-math.Round(x/b)) < 1e-9 })
}

func validString(x string, s *jsonschema.Schema) bool {
	n := uint64(utf8.RuneCountInString(x))
	if s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
		return false
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil || !re.MatchString(x) {
			return false
		}
	}
	return true
}

func (r *mdRenderer) validArray(x []any, s *jsonschema.Schema, depth int) bool {
	n := uint64(len(x))
	if s.MinItems != nil && n < *s.MinItems || s.MaxItems != nil && n > *s.MaxItems {
		return false
	}
	for i, e := range x {
		item := s.Items
		if i < len(s.PrefixItems) {
			item = s.PrefixItems[i]
		}
		if !r.valid(e, item, depth+1) {
			return false
		}
		if s.UniqueItems && slices.ContainsFunc(x[:i], func(f any) bool { return sameValue(e, f) }) {
			return false
		}
	}
	return true
}

func (r *mdRenderer) validObject(x map[string]any, s *jsonschema.Schema, depth int) bool {
	n := uint64(len(x))
	if s.MinProperties != nil && n < *s.MinProperties || s.MaxProperties != nil && n > *s.MaxProperties {
		return false
	}
	for _, k := range s.Required {
		if _, ok := x[k]; !ok {
			return false
		}
	}
	for k, e := range x {
		if s.PropertyNames != nil && !r.valid(k, s.PropertyNames, depth+1) {
			return false
		}
		var ps *jsonschema.Schema
		if s.Properties != nil {
			ps, _ = s.Properties.Get(k)
		}
		if ps == nil {
			ps = s.AdditionalProperties
		}
		if !r.valid(e, ps, depth+1) {
			return false
		}
	}
	return true
}

// sameValue compares two JSON values, whatever Go types hold them.
func sameValue(a, b any) bool {
	return reflect.DeepEqual(normalJSON(a), normalJSON(b))
}

func normalJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}
