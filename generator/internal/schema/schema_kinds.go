package schema

// Small questions about Go types the schemas ask: quoted (,string)
// fields, string kinds, nilability, recursion.

import (
	"go/types"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// quotedSchema is the schema of a ",string" field of type t, not a string:
// a string, holding an integer's digits where t is an integer (so a reader
// can tell that the value is one, and keep every digit beyond 2^53).
func quotedSchema(t types.Type) *jsonschema.Schema {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	min, _, ok := IntRange(t)
	switch {
	case isJSONNumber(t):
		return &jsonschema.Schema{Type: "string", Pattern: NumberPattern}
	case !ok:
		return &jsonschema.Schema{Type: "string"}
	case min == "0":
		return &jsonschema.Schema{Type: "string", Pattern: UintPattern}
	}
	return &jsonschema.Schema{Type: "string", Pattern: IntPattern}
}

// IntPattern and UintPattern are the patterns of an integer written as a
// string (a ",string" field): a JSON integer's digits, signed or not.
const (
	IntPattern  = `^-?(0|[1-9][0-9]*)$`
	UintPattern = `^(0|[1-9][0-9]*)$`
)

// NumberPattern is the pattern of a JSON number written as a string (a
// json.Number field with ",string").
const NumberPattern = `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`

// isJSONNumber reports whether t is json.Number, a string kind that
// encoding/json writes as a number.
func isJSONNumber(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "encoding/json" && n.Obj().Name() == "Number"
}

func isStringKind(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// nilable reports whether encoding/json may write a value of type t as null.
// A slice or map that encodes itself (net.IP) writes what its method writes,
// which its schema says.
func nilable(t types.Type) bool {
	if _, ptr := t.Underlying().(*types.Pointer); !ptr {
		if kind, _ := model.EncodingOf(t); kind != model.EncodesNone {
			return false
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map:
		return true
	case *types.Interface:
		return !u.Empty() // any is {} already, which allows null
	}
	return false
}

// nullable lets s also be null: {"anyOf": [s, {"type": "null"}]}, with
// s's description on the outer schema, where readers of a member's
// description look for it.
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	if s.Type == "" && s.Ref == "" && len(s.AnyOf) == 0 && s.Enum == nil {
		return s // any value already
	}
	if NonNull(s) != s {
		return s // null already
	}
	out := &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}}
	if s.Description != "" {
		inner := Shallow(s)
		out.Description, inner.Description = s.Description, ""
		out.AnyOf[0] = inner
	}
	return out
}

// nullableAs is s, the schema of a value of type t, allowing null where
// encoding/json writes null for a nil t: a pointer, a slice or a map, but
// not a slice or map whose schema asks for at least one item or member,
// whose nil the decoder refuses (minItems and minProperties apply to it).
func nullableAs(t types.Type, s *jsonschema.Schema) *jsonschema.Schema {
	if !nilable(t) {
		return s
	}
	switch t.Underlying().(type) {
	case *types.Slice, *types.Map:
		if s.MinItems != nil && *s.MinItems > 0 || s.MinProperties != nil && *s.MinProperties > 0 {
			return s
		}
	}
	return nullable(s)
}

// NonNull is the schema of the values of s that are not null: X of a
// nullable's {"anyOf": [X, {"type": "null"}]}, s itself for another.
func NonNull(s *jsonschema.Schema) *jsonschema.Schema {
	if s != nil && len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" && s.Type == "" {
		return s.AnyOf[0]
	}
	return s
}

// IsRecursive reports whether the named type n contains itself, in which
// case its schema goes through "$defs".
func (g *Builder) IsRecursive(n *types.Named) bool {
	key := TypeKey(n)
	if r, ok := g.recursive[key]; ok {
		return r
	}
	if g.recursive == nil {
		g.recursive = map[string]bool{}
	}
	seen := map[string]bool{}
	var reaches func(t types.Type) bool
	reaches = func(t types.Type) bool {
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			k := TypeKey(t)
			if k == key {
				return true
			}
			if seen[k] || g.Special(t, BuildCtx{}) != nil {
				return false
			}
			seen[k] = true
			return reaches(t.Underlying())
		case *types.Pointer:
			return reaches(t.Elem())
		case *types.Slice:
			return reaches(t.Elem())
		case *types.Array:
			return reaches(t.Elem())
		case *types.Map:
			return reaches(t.Elem())
		case *types.Struct:
			for i := range t.NumFields() {
				if reaches(t.Field(i).Type()) {
					return true
				}
			}
		}
		return false
	}
	r := reaches(n.Underlying())
	g.recursive[key] = r
	return r
}
