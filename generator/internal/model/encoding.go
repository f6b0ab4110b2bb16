package model

import (
	"fmt"
	"go/types"
	"strings"
)

// How a type that encodes itself travels, and what rpcgen knows of it.
// encoding/json lets a type's own methods write it: MarshalJSON (any JSON)
// before MarshalText (a JSON string), and reads it back with UnmarshalJSON
// or UnmarshalText. rpcgen describes such a type when it knows the form
// (the standard library's types in WellKnown; a text form is a string) or
// when the user states it (//rpcgen:schema file= on the type, or on an
// alias of a type of another package), and refuses it otherwise, as it
// refuses a pair of methods that write one form and read another.

// Encoding says which of encoding/json's interfaces a type uses to encode
// itself.
type Encoding int

const (
	EncodesNone Encoding = iota // encoding/json writes the type's kind: fields, elements, number...
	EncodesJSON                 // MarshalJSON or UnmarshalJSON: any JSON the methods write
	EncodesText                 // MarshalText or UnmarshalText: a JSON string
)

// WellKnown are the standard library's types that encode themselves with
// JSON methods and whose JSON rpcgen knows (the schema builder holds their
// schemas), by "path.Name".
var WellKnown = map[string]bool{
	"time.Time":                true, // an RFC 3339 string
	"encoding/json.RawMessage": true, // any JSON
	"math/big.Int":             true, // a number
	"log/slog.Level":           true, // a string: "INFO", "DEBUG+2"
}

// EncodingOf says how t encodes itself and which named type declares the
// methods that do: t itself, or a type t embeds, whose methods are
// promoted (a struct embedding time.Time is written as the time alone).
func EncodingOf(t types.Type) (Encoding, *types.Named) {
	t = types.Unalias(t)
	kind := EncodesNone
	switch {
	case Implements(t, "MarshalJSON") || Implements(t, "UnmarshalJSON"):
		kind = EncodesJSON
	case Implements(t, "MarshalText") || Implements(t, "UnmarshalText"):
		kind = EncodesText
	default:
		return EncodesNone, nil
	}
	names := [2]string{"MarshalJSON", "UnmarshalJSON"}
	if kind == EncodesText {
		names = [2]string{"MarshalText", "UnmarshalText"}
	}
	for _, name := range names {
		if owner := methodOwner(t, name); owner != nil {
			return kind, owner
		}
	}
	n, _ := t.(*types.Named)
	return kind, n
}

// methodOwner is the named type whose declaration holds the method name
// that t or *t has, nil when neither has it or it comes from an interface.
func methodOwner(t types.Type, name string) *types.Named {
	sel := types.NewMethodSet(types.NewPointer(t)).Lookup(nil, name)
	if sel == nil {
		return nil
	}
	recv := sel.Obj().(*types.Func).Signature().Recv()
	if recv == nil {
		return nil
	}
	rt := types.Unalias(recv.Type())
	if p, ok := rt.(*types.Pointer); ok {
		rt = types.Unalias(p.Elem())
	}
	n, _ := rt.(*types.Named)
	if n == nil {
		return nil
	}
	if _, iface := n.Underlying().(*types.Interface); iface {
		return nil
	}
	// A generic type's methods are declared on its origin; t's owner is
	// the instance t reaches.
	if tn, ok := t.(*types.Named); ok && tn.Origin() == n.Origin() {
		return tn
	}
	return n
}

// valueMethod reports whether t's own method set (not only *t's) has
// the method: encoding/json calls a method of *t only on a value it can
// address.
func valueMethod(t types.Type, name string) bool {
	return types.NewMethodSet(t).Lookup(nil, name) != nil
}

// TypeName is how rpcgen names a type in messages and keys: its package
// path and name ("math/big.Int").
func TypeName(n *types.Named) string {
	if n.Obj().Pkg() == nil {
		return n.Obj().Name()
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}

// checkEncoding checks the type t, which encodes itself (kind, owner: see
// EncodingOf), where a value of it is addressable or not; it returns why
// rpcgen refuses it, "" when it takes it.
func (c *typeChecker) checkEncoding(t *types.Named, kind Encoding, owner *types.Named, addressable bool) string {
	marshal, unmarshal := "MarshalJSON", "UnmarshalJSON"
	if kind == EncodesText {
		marshal, unmarshal = "MarshalText", "UnmarshalText"
	}
	name := c.str(t)
	hasM, hasU := Implements(t, marshal), Implements(t, unmarshal)
	stringKind := false
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
		stringKind = true
	}
	switch {
	case kind == EncodesText && stringKind:
		// Written and read as a string either way.
		c.noteEncoded(owner)
		return ""
	case hasM && !hasU:
		return fmt.Sprintf("type %s has %s but no %s: encoding/json writes it one way and reads it as its %s, so a value sent cannot be read back; give it %s (on *%s)", name, marshal, unmarshal, kindWords(t), unmarshal, t.Obj().Name())
	case hasU && !hasM:
		return fmt.Sprintf("type %s has %s but no %s: encoding/json reads it its own way and writes it as its %s, so a value sent cannot be read back; give it %s", name, unmarshal, marshal, kindWords(t), marshal)
	}
	if hasM && !addressable && !valueMethod(t, marshal) {
		return fmt.Sprintf("type %s in a map value: its %s has a pointer receiver, which encoding/json calls only on a value it can address, and a map's values cannot be addressed (it writes {} instead); hold it by pointer (*%s)", name, marshal, name)
	}
	if kind == EncodesText {
		c.noteEncoded(owner)
		return c.promoted(t, owner, marshal)
	}
	if owner == nil {
		return fmt.Sprintf("type %s writes its own JSON through an interface it embeds, which rpcgen cannot describe", name)
	}
	if WellKnown[TypeName(owner)] || c.noteEncoded(owner) {
		return c.promoted(t, owner, marshal)
	}
	how := fmt.Sprintf("state its schema in a JSON file named on its declaration: //rpcgen:schema file=%s.schema.json", strings.ToLower(owner.Obj().Name()))
	if owner.Obj().Pkg() != c.target {
		how = fmt.Sprintf("state its schema on an alias of it declared in this package: type %s = %s, with //rpcgen:schema file=%s.schema.json in its doc comment", owner.Obj().Name(), c.str(owner), strings.ToLower(owner.Obj().Name()))
	}
	what := "type " + name
	if owner != t {
		what += fmt.Sprintf(" (through %s, which it embeds)", c.str(owner))
	}
	return fmt.Sprintf("%s writes its own JSON (%s), whose form rpcgen cannot know; %s", what, marshal, how)
}

// noteEncoded records the stated schema of owner, if any, and reports
// whether there is one.
func (c *typeChecker) noteEncoded(owner *types.Named) bool {
	if owner == nil || c.encoded == nil {
		return false
	}
	st := c.encoded(owner)
	if st == nil {
		return false
	}
	if c.found == nil {
		c.found = map[string]*StatedSchema{}
	}
	c.found[types.TypeString(owner, nil)] = st
	return true
}

// promoted warns when t is written as a type it embeds, whose method is
// promoted: t's own fields never travel.
func (c *typeChecker) promoted(t, owner *types.Named, method string) string {
	if owner == nil || owner == t || c.warn == nil {
		return ""
	}
	if st, ok := t.Underlying().(*types.Struct); ok {
		var lost []string
		for i := range st.NumFields() {
			f := st.Field(i)
			if f.Embedded() || !f.Exported() {
				continue
			}
			if name, skip := jsonFieldName(f, st.Tag(i)); !skip {
				lost = append(lost, name)
			}
		}
		if len(lost) > 0 {
			c.warn(t.Obj().Pos(), fmt.Sprintf("warning: encoding/json writes %s as the %s it embeds alone (whose %s is promoted), so its fields %s never travel; give %s a %s of its own, or embed %s under a field name", c.str(t), c.str(owner), method, strings.Join(lost, ", "), t.Obj().Name(), method, owner.Obj().Name()))
		}
	}
	return ""
}

// kindWords names what encoding/json writes for a value of t without its
// methods.
func kindWords(t types.Type) string {
	switch t.Underlying().(type) {
	case *types.Struct:
		return "fields, an object"
	case *types.Basic:
		return "value"
	}
	return "elements"
}
