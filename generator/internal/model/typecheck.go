package model

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"strings"
)

// PkgPath is the import path of n's package, "" for a type of the
// universe (error).
func PkgPath(n *types.Named) string {
	if n.Obj().Pkg() == nil {
		return ""
	}
	return n.Obj().Pkg().Path()
}

// typeChecker decides whether a type can cross the wire as JSON and be named
// in generated code of the target package. It explains the first problem it
// finds, with the path to it ("field Tags: map key ...").
type typeChecker struct {
	target *types.Package
	// seen holds the named types being or already checked in one check,
	// for recursive types, and whether where they were met a value could
	// be addressed (what encoding/json can do with a method of *T).
	seen map[seenType]bool
	// invalid is set when a type could not be resolved (the package has a
	// type error there); the type error, not this checker, explains it.
	invalid bool
	// encoded finds the schema stated for a type that writes its own JSON,
	// nil when there is none; found collects those met, by type key.
	encoded func(*types.Named) *StatedSchema
	found   map[string]*StatedSchema
	// warn, when not nil, is told of problems that do not stop generation.
	warn func(pos token.Pos, msg string)
}

type seenType struct {
	t           types.Type
	addressable bool
}

// check returns why a value of type t cannot cross the wire, "" when it
// can.
func (c *typeChecker) check(t types.Type) string {
	c.seen = map[seenType]bool{}
	return c.walk(t, true, true)
}

// str prints t as the user would write it in the target package.
func (c *typeChecker) str(t types.Type) string {
	return types.TypeString(t, packageNameQualifier(c.target))
}

// walk checks t; named is true while t is part of a type expression the
// generated code writes out (a param or result type, a type argument, an
// element type), and false inside a named type's definition, which the
// generated code never spells. addressable is false where encoding/json
// meets a value it cannot address (a map's values and what they hold).
func (c *typeChecker) walk(t types.Type, named, addressable bool) string {
	switch t := t.(type) {
	case *types.Alias:
		if r := c.unexported(t.Obj(), named); r != "" {
			return r
		}
		return c.walk(types.Unalias(t), named, addressable)
	case *types.Named:
		return c.walkNamed(t, named, addressable)
	case *types.Basic:
		return c.walkBasic(t)
	case *types.Pointer:
		return c.walk(t.Elem(), named, true)
	case *types.Slice:
		return c.walk(t.Elem(), named, true)
	case *types.Array:
		return c.walk(t.Elem(), named, addressable)
	case *types.Map:
		if r := c.mapKey(t.Key()); r != "" {
			return r
		}
		if kind, _ := EncodingOf(t.Key()); kind == EncodesNone {
			if r := c.walk(t.Key(), named, false); r != "" {
				return r
			}
		} else if n, ok := types.Unalias(t.Key()).(*types.Named); ok {
			// A key is its text, whatever else it has (mapKey).
			if r := c.unexported(n.Obj(), named); r != "" {
				return r
			}
		}
		return c.walk(t.Elem(), named, false)
	case *types.Struct:
		return c.walkStruct(t, named, addressable)
	case *types.Interface:
		if t.Empty() {
			return ""
		}
		return fmt.Sprintf("interface type %s is not supported (only any is)", c.str(t))
	case *types.Chan:
		return fmt.Sprintf("channel type %s is not supported: a channel cannot be sent as JSON", c.str(t))
	case *types.Signature:
		return fmt.Sprintf("func type %s is not supported: a function cannot be sent as JSON", c.str(t))
	case *types.TypeParam:
		return fmt.Sprintf("type parameter %s is not supported", t)
	}
	return fmt.Sprintf("type %s is not supported", t)
}

// unexported explains why obj, a type name the generated code would spell
// when named is true, cannot be spelled there: it is unexported and from
// another package.
func (c *typeChecker) unexported(obj *types.TypeName, named bool) string {
	if named && obj.Pkg() != nil && obj.Pkg() != c.target && !obj.Exported() {
		return fmt.Sprintf("unexported type %s.%s from another package cannot be named in generated code", obj.Pkg().Name(), obj.Name())
	}
	return ""
}

func (c *typeChecker) walkNamed(t *types.Named, named, addressable bool) string {
	if r := c.unexported(t.Obj(), named); r != "" {
		return r
	}
	for i := range t.TypeArgs().Len() {
		if r := c.walk(t.TypeArgs().At(i), named, true); r != "" {
			return r
		}
	}
	key := seenType{t, addressable}
	if c.seen[key] {
		return ""
	}
	c.seen[key] = true
	if kind, owner := EncodingOf(t); kind != EncodesNone && PkgPath(t) != MCPPath {
		// MCP's own types (mcp.Content...) have MCP's schemas, and their
		// places are checked with the features that return them.
		return c.checkEncoding(t, kind, owner, addressable) // it encodes itself (time.Time, big.Int, ...)
	}
	if r := c.walk(t.Underlying(), false, addressable); r != "" {
		if _, isIface := t.Underlying().(*types.Interface); isIface {
			return fmt.Sprintf("interface type %s is not supported (only any is: JSON cannot say which implementation to decode)", c.str(t))
		}
		return r
	}
	return ""
}

func (c *typeChecker) walkBasic(t *types.Basic) string {
	switch t.Kind() {
	case types.Invalid:
		c.invalid = true
	case types.Complex64, types.Complex128:
		return fmt.Sprintf("%s is not supported: JSON has no complex numbers", t)
	case types.UnsafePointer:
		return "unsafe.Pointer is not supported"
	}
	return ""
}

func (c *typeChecker) walkStruct(t *types.Struct, named, addressable bool) string {
	for i := range t.NumFields() {
		f := t.Field(i)
		name, skip := jsonFieldName(f, t.Tag(i))
		if skip {
			continue
		}
		if r := quotedEncoder(f, t.Tag(i)); r != "" {
			return fmt.Sprintf("field %s: %s", name, r)
		}
		if r := c.walk(f.Type(), named, addressable); r != "" {
			return fmt.Sprintf("field %s: %s", name, r)
		}
	}
	return ""
}

// jsonFieldName returns the name encoding/json gives a struct field and
// whether encoding/json ignores it.
func jsonFieldName(f *types.Var, tag string) (string, bool) {
	jt, hasTag := reflect.StructTag(tag).Lookup("json")
	if jt == "-" {
		return "", true
	}
	if !f.Exported() && !f.Embedded() {
		return "", true
	}
	if hasTag {
		if name, _, _ := strings.Cut(jt, ","); name != "" {
			return name, false
		}
	}
	return f.Name(), false
}

// mapKey explains why encoding/json cannot use t as a map's key, "" when
// it can: a string or an integer kind, or a type whose own MarshalText
// (not only *t's: a key is never addressed) writes it and whose
// UnmarshalText reads it.
func (c *typeChecker) mapKey(t types.Type) string {
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&(types.IsString|types.IsInteger) != 0 {
		return ""
	}
	switch {
	case valueMethod(t, "MarshalText") && Implements(t, "UnmarshalText"):
		return ""
	case Implements(t, "MarshalText") && !valueMethod(t, "MarshalText"):
		return fmt.Sprintf("map key type %s: its MarshalText has a pointer receiver, which encoding/json does not call on a map's key (a key cannot be addressed); declare it on %s itself", c.str(t), c.str(t))
	case Implements(t, "MarshalText"):
		return fmt.Sprintf("map key type %s has MarshalText but no UnmarshalText: encoding/json cannot read its keys back", c.str(t))
	}
	return fmt.Sprintf("map key type %s is not supported: JSON object keys are strings (use a string or integer key, or one implementing encoding.TextMarshaler and encoding.TextUnmarshaler)", c.str(t))
}

// hasJSONMethods reports whether *T or T has MarshalJSON or UnmarshalJSON (or
// the text variants), in which case encoding/json leaves the layout to it.
func hasJSONMethods(t types.Type) bool {
	for _, m := range []string{"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText"} {
		if Implements(t, m) {
			return true
		}
	}
	return false
}

// Implements reports whether t, or a pointer to it, has the method named
// method (MarshalJSON, UnmarshalText...).
func Implements(t types.Type, method string) bool {
	if has, known := declaredMethod(t, method); known {
		return has
	}
	for _, tt := range []types.Type{t, types.NewPointer(t)} {
		ms := types.NewMethodSet(tt)
		for i := range ms.Len() {
			if ms.At(i).Obj().Name() == method {
				return true
			}
		}
	}
	return false
}

// declaredMethod answers implements(t, method) without building method sets
// when t's methods are all declared on it: known is false when t could have
// promoted methods (from an embedded field or an interface) or is one this
// shortcut does not know, and implements computes the method sets then.
// Building two method sets per call was the largest cost of checking the
// types of a big interface.
func declaredMethod(t types.Type, method string) (has, known bool) {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		// The method sets of *T and **T: T's declared and promoted methods.
		if n, ok := types.Unalias(p.Elem()).(*types.Named); ok {
			if _, isPtr := n.Underlying().(*types.Pointer); !isPtr {
				t = n
			}
		}
	}
	switch t := t.(type) {
	case *types.Basic:
		return false, true
	case *types.Named:
		for i := range t.NumMethods() {
			if t.Method(i).Name() == method {
				return true, true
			}
		}
		switch u := t.Underlying().(type) {
		case *types.Interface:
			return false, false
		case *types.Struct:
			for i := range u.NumFields() {
				if u.Field(i).Embedded() {
					return false, false
				}
			}
		}
		return false, true
	case *types.Slice, *types.Array, *types.Map, *types.Chan, *types.Signature:
		return false, true
	}
	return false, false
}

// quotedEncoder explains why the ",string" option of the field f cannot
// work: f's type is a bool, number or string kind that writes its own
// JSON, which encoding/json writes without quotes and reads unquoting it
// first, so a value sent cannot be read back.
func quotedEncoder(f *types.Var, tag string) string {
	jt := reflect.StructTag(tag).Get("json")
	_, opts, _ := strings.Cut(jt, ",")
	quoted := false
	for opt := range strings.SplitSeq(opts, ",") {
		quoted = quoted || opt == "string"
	}
	if !quoted {
		return ""
	}
	t := types.Unalias(f.Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok || b.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) == 0 {
		return "" // encoding/json ignores the option
	}
	if kind, _ := EncodingOf(t); kind == EncodesNone {
		return ""
	}
	return fmt.Sprintf("the \",string\" option on %s, which writes its own JSON, cannot work: encoding/json writes it without quotes and reads it unquoting it first, so a value sent cannot be read back; drop \",string\"", types.TypeString(t, nil))
}
