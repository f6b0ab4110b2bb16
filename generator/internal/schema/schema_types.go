package schema

import (
	"encoding/json"
	"fmt"
	"go/types"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// build returns the schema of a value of type t, as encoding/json reads and
// writes it. A named type is inlined (with its doc as description and its
// constants as enum) unless it is recursive.
func (g *Builder) build(t types.Type, c BuildCtx) *jsonschema.Schema {
	t = types.Unalias(t)
	n, ok := t.(*types.Named)
	if !ok {
		return g.underlying(t, c)
	}
	if s := g.Special(n, c); s != nil {
		return s
	}
	if g.viaDefs(n) {
		return g.ref(n, c)
	}
	return g.NamedBody(n, c)
}

// value is build for a value that may be nil: it may then be null, as
// encoding/json writes a nil pointer, slice or map, in input and output
// schemas alike (the decoders read null there as nil).
func (g *Builder) value(t types.Type, c BuildCtx) *jsonschema.Schema {
	s := g.build(t, c)
	if nilable(t) {
		return nullable(s)
	}
	return s
}

// Special returns the schema of a named type encoding/json treats apart, nil
// for the others:
//   - MCP's own types (mcp.Content...) have MCP's schemas;
//   - a type that writes itself with MarshalJSON has the schema stated for
//     it (//rpcgen:schema file=), or the one rpcgen knows (time.Time, an
//     RFC 3339 "date-time" string; big.Int, an integer; json.RawMessage,
//     any value), else any value (the model has refused it);
//   - a type with MarshalText is a string, unless it states another schema;
//   - json.Number is a number, time.Duration an integer of nanoseconds.
//
// A type that embeds one of these, whose methods are promoted, is written
// as that type: it has that type's schema.
func (g *Builder) Special(n *types.Named, c BuildCtx) *jsonschema.Schema {
	// Asked at every use of every named type; the method sets are the cost.
	s, ok := g.specials[n]
	if !ok {
		s = g.buildSpecial(n)
		if g.specials == nil {
			g.specials = map[*types.Named]*jsonschema.Schema{}
		}
		g.specials[n] = s
	}
	return Clone(s) // the caller's to change
}

// buildSpecial is special without the memo.
func (g *Builder) buildSpecial(n *types.Named) *jsonschema.Schema {
	name := model.TypeName(n)
	switch {
	case model.PkgPath(n) == model.MCPPath && mcpSchemaNames[n.Obj().Name()]:
		return mcpSchema(n.Obj().Name()) // described there
	case name == "encoding/json.Number" || name == "time.Duration":
		s := wellKnown[name]
		return Clone(&s)
	}
	kind, owner := model.EncodingOf(n)
	if kind == model.EncodesNone {
		return nil
	}
	if s := g.encodedSchema(n, kind, owner); s != nil {
		return s
	}
	return &jsonschema.Schema{} // refused by the model
}

// NamedBody is the inline schema of the named type n: its underlying type's,
// described by n's doc comment, with n's constants as enum.
//
// A type is described at every use, so the answer is kept, and every use
// gets the same answer: a schema, and the schemas below it, that the schema
// builder hands out are shared. A caller that changes a schema (field
// applies tags and a description) first takes a copy of its own with own,
// and of the one below it that it changes (applyTag's items); copying only
// what changes, rather than the whole tree at every use, halves the work
// for nested types. Only an answer whose building reported no problem is
// kept: a problem is positioned at the use (c.pos), so a type with one is
// still built, and its problems reported, at every use. Nor is a recursive
// type's: ref and rootBody build its definition apart.
func (g *Builder) NamedBody(n *types.Named, c BuildCtx) *jsonschema.Schema {
	key := bodyKey{n, c.Output}
	if s, ok := g.bodies[key]; ok {
		if g.Deep {
			return Clone(s)
		}
		return s
	}
	calls := g.errCalls
	s := g.buildNamedBody(n, c)
	if g.errCalls == calls && !g.IsRecursive(n) {
		if g.bodies == nil {
			g.bodies = map[bodyKey]*jsonschema.Schema{}
		}
		if g.Deep {
			g.bodies[key] = Clone(s)
		} else {
			g.bodies[key] = s
		}
	}
	return s
}

// own returns s for its caller to change: s itself in deep mode, where
// every caller gets a copy of its own, otherwise a copy of s that shares
// the schemas below it (see namedBody).
func (g *Builder) own(s *jsonschema.Schema) *jsonschema.Schema {
	if g.Deep {
		return s
	}
	return Shallow(s)
}

// buildNamedBody is namedBody without the memo.
func (g *Builder) buildNamedBody(n *types.Named, c BuildCtx) *jsonschema.Schema {
	c.Path = n.Obj().Name()
	s := g.own(g.underlying(n.Underlying(), c)) // a pointer type's may be shared
	if vals, _ := g.EnumOf(n); len(vals) > 0 && s.Type != "" {
		s.Enum = vals
		// The values say more than the Go type's range.
		s.Minimum, s.Maximum = "", ""
	}
	s.Description = WithEnumNotes(model.OneLine(g.Docs.doc(docType, n.Obj().Pos())), g.EnumNotes(n))
	return s
}

// underlying returns the schema of an unnamed type (or a named type's
// underlying type).
func (g *Builder) underlying(t types.Type, c BuildCtx) *jsonschema.Schema {
	switch t := t.(type) {
	case *types.Basic:
		return g.basic(t, c)
	case *types.Pointer:
		// A nil pointer is null; whether a member may be left out is its
		// container's to say (see field). What the pointer points to may
		// be null itself (**int, *[]byte).
		return g.value(t.Elem(), c)
	case *types.Slice:
		if IsByte(t.Elem()) {
			return &jsonschema.Schema{Type: "string", ContentEncoding: "base64"}
		}
		return &jsonschema.Schema{Type: "array", Items: g.value(t.Elem(), elemCtx(c, "[]"))}
	case *types.Array:
		n := uint64(t.Len())
		return &jsonschema.Schema{Type: "array", Items: g.value(t.Elem(), elemCtx(c, "[]")), MinItems: &n, MaxItems: &n}
	case *types.Map:
		s := &jsonschema.Schema{Type: "object", AdditionalProperties: g.value(t.Elem(), elemCtx(c, "[]"))}
		key := types.Unalias(t.Key())
		kb, _ := key.Underlying().(*types.Basic)
		switch {
		case model.Implements(key, "MarshalText"):
		case kb != nil && kb.Info()&types.IsString != 0:
			if values, _ := g.EnumOf(key); len(values) > 0 {
				s.PropertyNames = &jsonschema.Schema{Enum: values} // a map keyed by an enum
			}
		case kb != nil && kb.Info()&types.IsInteger != 0:
			if values, _ := g.EnumOf(key); len(values) > 0 {
				keys := make([]any, len(values))
				for i, v := range values {
					keys[i] = fmt.Sprint(v) // an object's keys are strings: "1", not 1
				}
				s.PropertyNames = &jsonschema.Schema{Enum: keys}
			} else if kb.Info()&types.IsUnsigned != 0 {
				s.PropertyNames = &jsonschema.Schema{Pattern: "^[0-9]+$"}
			} else {
				s.PropertyNames = &jsonschema.Schema{Pattern: "^-?[0-9]+$"}
			}
		default:
			g.unsupported(c, t, "JSON object keys are strings")
		}
		return s
	case *types.Struct:
		return g.object(t, c)
	case *types.Interface:
		if t.Empty() {
			return &jsonschema.Schema{} // any value
		}
		g.unsupported(c, t, "only any is: JSON cannot say which implementation to decode")
	case *types.Chan:
		g.unsupported(c, t, "a channel cannot be sent as JSON")
	case *types.Signature:
		g.unsupported(c, t, "a function cannot be sent as JSON")
	default:
		g.unsupported(c, t, "")
	}
	return &jsonschema.Schema{}
}

func elemCtx(c BuildCtx, suffix string) BuildCtx {
	c.Path += suffix
	return c
}

func (g *Builder) unsupported(c BuildCtx, t types.Type, why string) {
	msg := fmt.Sprintf("%s: %s cannot be represented in JSON Schema", c.Path, g.TypeString(t))
	if why != "" {
		msg += " (" + why + ")"
	}
	g.Errorf(c.Pos, msg)
}

// IsByte reports whether a slice of t is a []byte to encoding/json: base64.
func IsByte(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.Uint8 && !model.Implements(t, "MarshalJSON") && !model.Implements(t, "MarshalText")
}

// intRange is the range of an integer kind, its minimum and maximum as
// JSON numbers, and its name. int and uint are 64 bits wide on every 64-bit
// platform, and are stated so. The schemas state the range alone, without
// a "format" such as OpenAPI's "int64": JSON Schema only annotates with
// one, and ajv 6 (which the TypeScript client of @open-rpc/generator checks
// params with) throws on a format it does not know.
type intRange struct{ min, max, name string }

var intRanges = map[types.BasicKind]intRange{
	types.Int8: {"-128", "127", "int8"}, types.Int16: {"-32768", "32767", "int16"},
	types.Int32: {"-2147483648", "2147483647", "int32"},
	types.Int:   {"-9223372036854775808", "9223372036854775807", "int64"},
	types.Int64: {"-9223372036854775808", "9223372036854775807", "int64"},
	types.Uint8: {"0", "255", "uint8"}, types.Uint16: {"0", "65535", "uint16"}, types.Uint32: {"0", "4294967295", "uint32"},
	types.Uint: {"0", "18446744073709551615", "uint64"}, types.Uint64: {"0", "18446744073709551615", "uint64"},
	types.Uintptr: {"0", "18446744073709551615", "uint64"},
}

// IntRangeName names the integer type whose range is exactly min..max
// ("int64", "uint8"), "" when none is.
func IntRangeName(min, max string) string {
	for _, r := range intRanges {
		if r.min == min && r.max == max {
			return r.name
		}
	}
	return ""
}

// IntRange returns the minimum and maximum of an integer type's values, as
// basic states them; ok is false for a type that is not an integer.
func IntRange(t types.Type) (min, max string, ok bool) {
	b, isBasic := t.Underlying().(*types.Basic)
	if !isBasic {
		return "", "", false
	}
	r, ok := intRanges[b.Kind()]
	return r.min, r.max, ok
}

func (g *Builder) basic(t *types.Basic, c BuildCtx) *jsonschema.Schema {
	info := t.Info()
	switch {
	case t.Kind() == types.Invalid:
		return &jsonschema.Schema{} // the type checker has explained it
	case info&types.IsBoolean != 0:
		return &jsonschema.Schema{Type: "boolean"}
	case info&types.IsString != 0:
		return &jsonschema.Schema{Type: "string"}
	case info&types.IsInteger != 0:
		r := intRanges[t.Kind()]
		return &jsonschema.Schema{Type: "integer", Minimum: json.Number(r.min), Maximum: json.Number(r.max)}
	case info&types.IsFloat != 0:
		return &jsonschema.Schema{Type: "number"}
	case info&types.IsComplex != 0:
		g.unsupported(c, t, "JSON has no complex numbers")
	default:
		g.unsupported(c, t, "")
	}
	return &jsonschema.Schema{}
}

// object is the schema of a struct: its encoding/json members as properties.
func (g *Builder) object(st *types.Struct, c BuildCtx) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema}
	fields, err := g.FieldsOf(st)
	if err != nil {
		g.Errorf(c.Pos, fmt.Sprintf("%s: %v", c.Path, err))
	}
	if len(fields) > 0 {
		s.Properties = jsonschema.NewProperties()
	}
	for _, f := range fields {
		s.Properties.Set(f.Key, g.field(f, c))
		if f.Required {
			s.Required = append(s.Required, f.Key)
		}
	}
	return s
}

// field is the schema of one struct member: its type's schema, described by
// the field's doc (else the type's), with the `jsonschema` tag applied.
func (g *Builder) field(f Field, parent BuildCtx) *jsonschema.Schema {
	c := BuildCtx{Output: parent.Output, Path: strings.Join(f.Names, "."), Pos: f.Pos}
	if parent.Path != "" {
		c.Path = parent.Path + "." + c.Path
	}
	var s *jsonschema.Schema
	if f.String && (!isStringKind(f.Type) || isJSONNumber(derefType(f.Type))) {
		s = quotedSchema(f.Type) // ",string": a number or bool in quotes
	} else {
		s = g.own(g.build(f.Type, c))
	}
	if f.Doc != "" {
		s.Description = WithEnumNotes(model.OneLine(f.Doc), g.EnumNotes(f.Type))
	}
	g.applyTag(s, f.Tag, c)
	// omitempty and omitzero leave a nil value out rather than writing null
	// (a pointer to a nil slice they keep, and its type says null).
	if !f.OmitEmpty && !f.OmitZero {
		s = nullableAs(f.Type, s)
	}
	return s
}

// derefType is t, or what t points to.
func derefType(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}
