package schema

// Small questions about Go types the schemas ask: quoted (,string)
// fields, string kinds, nilability, recursion.

import (
	"go/types"

	"github.com/invopop/jsonschema"
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

func isStringKind(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// nilable reports whether encoding/json may write a value of type t as null.
func nilable(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map:
		return true
	case *types.Interface:
		return !u.Empty() // any is {} already, which allows null
	}
	return false
}

// nullable lets s also be null (output schemas only).
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	if s.Type == "" && s.Ref == "" && len(s.AnyOf) == 0 && s.Enum == nil {
		return s // any value already
	}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}}
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
