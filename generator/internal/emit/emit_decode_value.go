package emit

import (
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// scalarReaders names the rpcimpl.Decoder method reading each basic kind.
var scalarReaders = map[types.BasicKind]string{
	types.Bool: "Bool", types.String: "String",
	types.Int: "Int", types.Int8: "Int8", types.Int16: "Int16", types.Int32: "Int32", types.Int64: "Int64",
	types.Uint: "Uint", types.Uint8: "Uint8", types.Uint16: "Uint16", types.Uint32: "Uint32", types.Uint64: "Uint64",
	types.Uintptr: "Uintptr", types.Float32: "Float32", types.Float64: "Float64",
}

// value returns the statements reading the next value, of type t, into tg and
// checking it against s (nil: no constraints). depth numbers the locals of
// nested containers; pos is where to report a problem with s.
func (de *decodeEmitter) value(sc *decodeScope, t types.Type, s *jsonschema.Schema, tg target, quoted bool, depth int, pos token.Position) []jen.Code {
	s = schema.NonNull(s) // null is read as nil below, where Go has one
	if de.lenient {
		s = nil // a result: read as encoding/json reads it
	}
	if s != nil && s.Ref != "" {
		s = nil // a recursive type: its helper checks its fields
	}
	assign := func(call jen.Code) []jen.Code { return []jen.Code{tg.val().Op("=").Add(call)} }
	if ptr, ok := t.Underlying().(*types.Pointer); ok {
		inner := de.value(sc, ptr.Elem(), s, tg.elemOf(), quoted, depth, pos)
		alloc := append([]jen.Code{tg.val().Op("=").New(de.typeExpr(ptr.Elem()))}, inner...)
		return []jen.Code{jen.If(dcall("Null")).Block(tg.val().Op("=").Nil()).Else().Block(alloc...)}
	}
	if method := specialReader(t); method != "" {
		read := tg.val().Op("=").Add(dcall(method))
		if quoted {
			return []jen.Code{jen.If(dcall("OpenQuoted")).Block(read, dcall("CloseQuoted"))}
		}
		return []jen.Code{read}
	}
	if model.Implements(t, "UnmarshalJSON") || model.Implements(t, "UnmarshalText") {
		// It decodes itself: correct rather than fast.
		return []jen.Code{dcall("Unmarshal", tg.addr())}
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return de.scalar(sc, t, u, s, tg, quoted, pos)
	case *types.Slice:
		if schema.IsByte(u.Elem()) {
			if b, ok := types.Unalias(u.Elem()).(*types.Basic); !ok || b.Kind() != types.Uint8 {
				// Bytes of a named type ([]Weekday): base64 all the same,
				// but []byte does not convert to it.
				return []jen.Code{dcall("Unmarshal", tg.addr())}
			}
			return assign(de.convert(t, dcall("Bytes")))
		}
		return de.slice(sc, t, u, s, tg, depth, pos)
	case *types.Array:
		return de.array(sc, u, s, tg, depth, pos)
	case *types.Map:
		return de.mapValue(sc, t, u, s, tg, depth, pos)
	case *types.Struct:
		return []jen.Code{jen.Id(de.helperFor(sc, t, u)).Call(sc.d(), tg.addr())}
	case *types.Interface:
		return assign(dcall("Any"))
	}
	de.sg.Errorf(pos, "cannot decode a value of type "+de.sg.TypeString(t))
	return nil
}

// specialReader names the runtime.Decoder method that reads a value of
// one of the standard library's types encoding/json treats apart, "" for
// other types.
func specialReader(t types.Type) string {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return ""
	}
	switch path, name := model.PkgPath(n), n.Obj().Name(); {
	case path == "time" && name == "Time":
		return "Time"
	case path == "encoding/json" && name == "RawMessage":
		return "RawMessage"
	case path == "encoding/json" && name == "Number":
		return "Number"
	}
	return ""
}

// convert wraps call in a conversion to t unless call already has type t.
func (de *decodeEmitter) convert(t types.Type, call jen.Code) jen.Code {
	switch u := types.Unalias(t).(type) {
	case *types.Basic:
		return call
	case *types.Slice:
		if b, ok := types.Unalias(u.Elem()).(*types.Basic); ok && b.Kind() == types.Uint8 {
			return call // []byte
		}
	}
	return jen.Add(de.typeExpr(t)).Call(call)
}

// scalar reads a bool, number or string, possibly quoted (",string").
func (de *decodeEmitter) scalar(sc *decodeScope, t types.Type, u *types.Basic, s *jsonschema.Schema, tg target, quoted bool, pos token.Position) []jen.Code {
	method, ok := scalarReaders[u.Kind()]
	if !ok {
		de.sg.Errorf(pos, "cannot decode a value of type "+de.sg.TypeString(t))
		return nil
	}
	read := tg.val().Op("=").Add(de.convert(t, dcall(method)))
	var code []jen.Code
	if quoted {
		code = []jen.Code{jen.If(dcall("OpenQuoted")).Block(read, dcall("CloseQuoted"))}
	} else {
		code = []jen.Code{read}
	}
	return append(code, de.scalarChecks(sc, t, u, s, tg.val, pos)...)
}

// slice reads an array into a slice; null is a nil slice.
func (de *decodeEmitter) slice(sc *decodeScope, t types.Type, u *types.Slice, s *jsonschema.Schema, tg target, depth int, pos token.Position) []jen.Code {
	elem := local("elem", depth)
	var items *jsonschema.Schema
	if s != nil {
		items = s.Items
	}
	body, v := de.element(sc, u.Elem(), items, elem, depth, pos)
	if de.lenient {
		// A result may be long: grown by doubling (see rpcimpl.Append).
		body = append(body, tg.val().Op("=").Qual(implPath, "Append").Call(tg.val(), v))
	} else {
		body = append(body, tg.val().Op("=").Append(tg.val(), v))
	}
	code := []jen.Code{jen.If(dcall("Null")).Block(tg.val().Op("=").Nil()).Else().If(dcall("Array")).Block(
		tg.val().Op("=").Add(de.typeExpr(t)).Values(),
		jen.For(dcall("NextElem")).Block(body...),
	)}
	return append(code, de.itemChecks(u.Elem(), s, tg.val, pos)...)
}

// array reads an array of exactly the Go array's length.
func (de *decodeEmitter) array(sc *decodeScope, u *types.Array, s *jsonschema.Schema, tg target, depth int, pos token.Position) []jen.Code {
	n := local("n", depth)
	var items *jsonschema.Schema
	if s != nil {
		items = s.Items
	}
	body := []jen.Code{jen.If(jen.Id(n).Op(">=").Lit(int(u.Len()))).Block(dcall("Skip"), jen.Continue())}
	body = append(body, de.value(sc, u.Elem(), items, tg.index(n), false, depth+1, pos)...)
	count := "must have exactly " + strconv.FormatInt(u.Len(), 10) + " items"
	code := []jen.Code{jen.If(dcall("Array")).Block(
		jen.Id(n).Op(":=").Lit(0),
		jen.For(jen.Empty(), dcall("NextElem"), jen.Id(n).Op("++")).Block(body...),
		jen.If(jen.Id(n).Op("!=").Lit(int(u.Len()))).Block(dcall("Fail", jen.Lit(count))),
	)}
	if de.lenient {
		// encoding/json drops what does not fit and leaves the rest zero.
		code = []jen.Code{jen.If(dcall("Array")).Block(
			jen.Id(n).Op(":=").Lit(0),
			jen.For(jen.Empty(), dcall("NextElem"), jen.Id(n).Op("++")).Block(body...),
		)}
	}
	if s != nil && s.UniqueItems {
		code = append(code, de.uniqueCheck(u.Elem(), jen.Add(tg.val()).Index(jen.Op(":")), pos)...)
	}
	return code
}

// mapValue reads an object into a map with string keys; null is a nil map.
// Other keys are left to encoding/json.
func (de *decodeEmitter) mapValue(sc *decodeScope, t types.Type, u *types.Map, s *jsonschema.Schema, tg target, depth int, pos token.Position) []jen.Code {
	if kb, ok := u.Key().Underlying().(*types.Basic); !ok || kb.Info()&types.IsString == 0 || model.Implements(u.Key(), "UnmarshalText") {
		code := []jen.Code{dcall("Unmarshal", tg.addr())}
		if ok && kb.Info()&types.IsInteger != 0 && !model.Implements(u.Key(), "UnmarshalText") && s != nil && s.PropertyNames != nil && len(s.PropertyNames.Enum) > 0 {
			code = append(code, intKeyEnumCheck(tg, kb, s.PropertyNames.Enum, depth)...)
		}
		return code
	}
	key, elem := local("k", depth), local("elem", depth)
	var values *jsonschema.Schema
	if s != nil {
		values = s.AdditionalProperties
	}
	body, v := de.element(sc, u.Elem(), values, elem, depth, pos)
	// The key is copied before the value is read: reading a value that
	// holds an object with an escaped key reuses the storage key points to.
	ks := local("ks", depth)
	body = append([]jen.Code{jen.Id(ks).Op(":=").String().Call(jen.Id(key))}, body...)
	k := de.convert(u.Key(), jen.Id(ks))
	if _, ok := types.Unalias(u.Key()).(*types.Basic); !ok {
		k = jen.Add(de.typeExpr(u.Key())).Call(jen.Id(ks))
	}
	if s != nil && s.PropertyNames != nil && len(s.PropertyNames.Enum) > 0 {
		body = append(keyEnumCheck(key, s.PropertyNames.Enum), body...)
	}
	m := tg.val()
	if tg.deref {
		m = jen.Parens(m) // *p.M[k] would index the pointer
	}
	body = append(body, m.Index(k).Op("=").Add(v))
	code := []jen.Code{jen.If(dcall("Null")).Block(tg.val().Op("=").Nil()).Else().If(dcall("Object")).Block(
		tg.val().Op("=").Add(de.typeExpr(t)).Values(),
		jen.Var().Id(key).Index().Byte(),
		jen.For(dcall("NextKey", jen.Op("&").Id(key))).Block(body...),
	)}
	if s != nil {
		code = append(code, countChecks(tg.val, s.MinProperties, s.MaxProperties, "properties", "minProperties", "maxProperties")...)
	}
	return code
}

// element reads an element of a slice or map and returns the code and the
// value to store: the new local elem, or the read itself when there is
// nothing to check.
func (de *decodeEmitter) element(sc *decodeScope, t types.Type, s *jsonschema.Schema, elem string, depth int, pos token.Position) ([]jen.Code, jen.Code) {
	if u, ok := t.Underlying().(*types.Basic); ok && scalarReaders[u.Kind()] != "" && specialReader(t) == "" && !model.Implements(t, "UnmarshalJSON") && !model.Implements(t, "UnmarshalText") {
		read := de.convert(t, dcall(scalarReaders[u.Kind()]))
		checks := de.scalarChecks(sc, t, u, s, localTarget(elem).val, pos)
		if len(checks) == 0 {
			return nil, read
		}
		return append([]jen.Code{jen.Id(elem).Op(":=").Add(read)}, checks...), jen.Id(elem)
	}
	code := []jen.Code{jen.Var().Id(elem).Add(de.typeExpr(t))}
	return append(code, de.value(sc, t, s, localTarget(elem), false, depth+1, pos)...), jen.Id(elem)
}

// local names a local of a nested container: elem, elem2, ...
func local(base string, depth int) string {
	if depth <= 1 {
		return base
	}
	return base + strconv.Itoa(depth)
}

// keyEnumCheck checks that the key of a map keyed by an enum is one of the
// enum's values, naming the key it got.
func keyEnumCheck(key string, enum []any) []jen.Code {
	var cases []jen.Code
	var shown []string
	for _, v := range enum {
		if v, ok := v.(string); ok {
			cases = append(cases, jen.Lit(v))
			shown = append(shown, strconv.Quote(v))
		}
	}
	msg := jen.Lit("key ").Op("+").Qual("strconv", "Quote").Call(jen.String().Call(jen.Id(key))).Op("+").Lit(": must be one of " + strings.Join(shown, ", "))
	return []jen.Code{jen.Switch(jen.String().Call(jen.Id(key))).Block(
		jen.Case(cases...),
		jen.Default().Block(dcall("Fail", msg)),
	)}
}

// intKeyEnumCheck checks, after encoding/json has read a map keyed by an
// integer enum, that every key is one of the enum's values (propertyNames
// holds them as strings, an object's keys being strings).
func intKeyEnumCheck(tg target, kb *types.Basic, enum []any, depth int) []jen.Code {
	var cases []jen.Code
	var shown []string
	for _, v := range enum {
		if v, ok := v.(string); ok {
			cases = append(cases, jen.Op(v))
			shown = append(shown, strconv.Quote(v))
		}
	}
	if len(cases) == 0 {
		return nil
	}
	key := local("k", depth)
	text := jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(jen.Id(key)), jen.Lit(10))
	if kb.Info()&types.IsUnsigned != 0 {
		text = jen.Qual("strconv", "FormatUint").Call(jen.Uint64().Call(jen.Id(key)), jen.Lit(10))
	}
	msg := jen.Lit("key ").Op("+").Qual("strconv", "Quote").Call(text).Op("+").Lit(": must be one of " + strings.Join(shown, ", "))
	return []jen.Code{jen.For(jen.Id(key).Op(":=").Range().Add(tg.val())).Block(jen.Switch(jen.Id(key)).Block(
		jen.Case(cases...),
		jen.Default().Block(dcall("Fail", msg)),
	))}
}
