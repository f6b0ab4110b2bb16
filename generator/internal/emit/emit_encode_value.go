package emit

// The statements of the result encoders: a struct's members, and a value
// of each kind the encoders write (see emit_encode.go).

import (
	"go/token"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// structBody writes the members of a struct as encoding/json does: in
// field order, each after its key, those omitempty, omitzero or behind a
// nil embedded pointer left out. When the first member may be left out,
// every member starts with a comma and the first one written has it
// replaced by the opening brace.
func (ee *encodeEmitter) structBody(fn encodeFn) []jen.Code {
	fields, err := ee.sg.FieldsOf(fn.st)
	if err != nil {
		ee.sg.Errorf(token.Position{}, err.Error())
	}
	if len(fields) == 0 {
		return []jen.Code{jen.Return(jen.Append(jen.Id("b"), jen.Lit("{}").Op("...")))}
	}
	owner := strings.TrimSuffix(strings.TrimPrefix(fn.name, "append"), "JSON")
	var body []jen.Code
	open := false // a member is always written: the rest start with a comma
	start := false
	for _, fl := range fields {
		tg, cond := ee.fieldTarget(fn.st, fl)
		cond = and(cond, ee.omitCond(fl, tg))
		prefix := ","
		if !open && !start {
			prefix = "{"
		}
		if cond != nil && !open && !start {
			// The first member may be left out.
			body = append(body, jen.Id("start").Op(":=").Len(jen.Id("b")))
			start, prefix = true, ","
		}
		code := []jen.Code{appendText(prefix + jsonKey(fl.Key))}
		code = append(code, ee.valueOf(owner+fl.Names[len(fl.Names)-1], fl.Type, tg, fl.String, 1, omitsNil(fl))...)
		if cond == nil {
			open = true
			body = append(body, code...)
		} else {
			body = append(body, jen.If(cond).Block(code...))
		}
	}
	if !start {
		return append(body, jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}'))))
	}
	if open {
		// A member after the first is always written.
		return append(body,
			jen.Id("b").Index(jen.Id("start")).Op("=").LitRune('{'),
			jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}'))),
		)
	}
	return append(body,
		jen.If(jen.Len(jen.Id("b")).Op("==").Id("start")).Block(
			jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('{')),
		).Else().Block(
			jen.Id("b").Index(jen.Id("start")).Op("=").LitRune('{'),
		),
		jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}'))),
	)
}

// fieldTarget returns where the field fl of st is, v's field, and the
// condition that every embedded pointer on the way is set (nil if none).
func (ee *encodeEmitter) fieldTarget(st *types.Struct, fl schema.Field) (target, *jen.Statement) {
	var cond *jen.Statement
	off := 0 // fl.Names[off:] is the Go path: unnameable embedded structs are skipped
	cur := st
	for i := 0; i < len(fl.Names)-1; i++ {
		sf := cur.Field(fl.Index[i])
		ft := types.Unalias(sf.Type())
		if fl.EmbedPtr[i] {
			ft = ft.(*types.Pointer).Elem()
			cond = and(cond, selectorTarget("v", fl.Names[off:i+1]...).val().Op("!=").Nil())
		}
		if !ee.names.nameable(sf) {
			off = i + 1
		}
		cur = ft.Underlying().(*types.Struct)
	}
	return selectorTarget("v", fl.Names[off:]...), cond
}

func and(a, b *jen.Statement) *jen.Statement {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return a.Op("&&").Add(b)
}

// omitCond is the condition under which a field with omitempty or
// omitzero is written, nil when it always is.
func (ee *encodeEmitter) omitCond(fl schema.Field, tg target) *jen.Statement {
	var cond *jen.Statement
	if fl.OmitEmpty {
		switch u := fl.Type.Underlying().(type) {
		case *types.Array, *types.Map, *types.Slice:
			cond = jen.Len(tg.val()).Op("!=").Lit(0)
		case *types.Pointer, *types.Interface:
			cond = tg.val().Op("!=").Nil()
		case *types.Basic:
			switch {
			case u.Info()&types.IsString != 0:
				cond = jen.Len(tg.val()).Op("!=").Lit(0)
			case u.Info()&types.IsBoolean != 0:
				cond = tg.val()
			default:
				cond = tg.val().Op("!=").Lit(0)
			}
		}
	}
	if fl.OmitZero {
		switch fl.Type.Underlying().(type) {
		case *types.Basic, *types.Pointer:
			if fl.OmitEmpty && zeroTest(fl.Type) == zeroCompare {
				return cond // empty is zero
			}
		}
		cond = and(cond, ee.zeroCond(fl.Type, tg))
	}
	return cond
}

// omitsNil reports whether the field fl, when a pointer, slice or map, is
// left out when nil.
func omitsNil(fl schema.Field) bool {
	if fl.OmitEmpty {
		return true
	}
	z := zeroTest(fl.Type)
	return fl.OmitZero && (z == zeroCompare || z == zeroPtr)
}

// zeroKind is how a field with omitzero is tested, as encoding/json tests
// it: its IsZero method, or the comparison with the zero value.
type zeroKind int

const (
	zeroNone    zeroKind = iota // no test generated code makes
	zeroMethod                  // t's IsZero (t not a pointer)
	zeroPtr                     // t is a pointer with IsZero: nil or IsZero
	zeroAddr                    // *t's IsZero, on the field's address
	zeroCompare                 // t == its zero value
)

// isZeroer is encoding/json's interface{ IsZero() bool }.
var isZeroer = types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, "IsZero",
	types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(types.NewVar(token.NoPos, nil, "", types.Typ[types.Bool])), false))}, nil).Complete()

func zeroTest(t types.Type) zeroKind {
	_, isPtr := t.Underlying().(*types.Pointer)
	switch t.Underlying().(type) {
	case *types.Interface:
		if types.Implements(t, isZeroer) {
			return zeroNone // encoding/json calls IsZero on what it holds unless nil
		}
		return zeroCompare
	case *types.Struct, *types.Array:
		if !types.Comparable(t) && !types.Implements(t, isZeroer) && !types.Implements(types.NewPointer(t), isZeroer) {
			return zeroNone
		}
	}
	switch {
	case isPtr && types.Implements(t, isZeroer):
		return zeroPtr
	case types.Implements(t, isZeroer):
		return zeroMethod
	case !isPtr && types.Implements(types.NewPointer(t), isZeroer):
		return zeroAddr
	}
	return zeroCompare
}

// zeroCond is the condition that a field with omitzero is not zero.
func (ee *encodeEmitter) zeroCond(t types.Type, tg target) *jen.Statement {
	switch zeroTest(t) {
	case zeroMethod:
		return jen.Op("!").Add(tg.val()).Dot("IsZero").Call()
	case zeroPtr:
		return tg.val().Op("!=").Nil().Op("&&").Op("!").Add(tg.val()).Dot("IsZero").Call()
	case zeroAddr:
		return jen.Op("!").Parens(tg.addr()).Dot("IsZero").Call()
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsString != 0:
			return jen.Len(tg.val()).Op("!=").Lit(0)
		case u.Info()&types.IsBoolean != 0:
			return tg.val()
		}
		return tg.val().Op("!=").Lit(0)
	case *types.Slice, *types.Map, *types.Pointer, *types.Interface:
		return tg.val().Op("!=").Nil()
	}
	return tg.val().Op("!=").Parens(jen.Add(ee.names.typeExpr(t)).Values())
}

// appendText is b = append(b, text...), or b = append(b, 'c') for a byte.
func appendText(text string) jen.Code {
	if len(text) == 1 {
		return jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune(rune(text[0])))
	}
	lit := jen.Lit(text)
	if !strings.ContainsAny(text, "`\r") {
		lit = jen.Op("`" + text + "`")
	}
	return jen.Id("b").Op("=").Append(jen.Id("b"), lit.Op("..."))
}

// quote wraps code in quotes when quoted (the ",string" option).
func quote(quoted bool, code []jen.Code) []jen.Code {
	if !quoted {
		return code
	}
	return append(append([]jen.Code{appendText(`"`)}, code...), appendText(`"`))
}

// elements writes a slice or array as a JSON array.
func (ee *encodeEmitter) elements(owner string, elem types.Type, tg target, depth int) []jen.Code {
	i := local("i", depth)
	body := []jen.Code{jen.If(jen.Id(i).Op(">").Lit(0)).Block(appendText(","))}
	body = append(body, ee.value(owner+"Elem", elem, elementAt(tg, i), false, depth+1)...)
	return []jen.Code{
		appendText("["),
		jen.For(jen.Id(i).Op(":=").Range().Add(tg.val())).Block(body...),
		appendText("]"),
	}
}

// members writes a map with string keys as a JSON object, its keys sorted
// as encoding/json sorts them.
func (ee *encodeEmitter) members(owner string, u *types.Map, tg target, depth int) []jen.Code {
	i, k, keys, elem := local("i", depth), local("k", depth), local("keys", depth), local("elem", depth)
	m := tg.val()
	if tg.deref {
		m = jen.Parens(m) // *v[k] would index the pointer
	}
	key := jen.Id(k)
	if kt, ok := types.Unalias(u.Key()).(*types.Basic); !ok || kt.Kind() != types.String {
		key = jen.String().Call(key)
	}
	body := []jen.Code{
		jen.If(jen.Id(i).Op(">").Lit(0)).Block(appendText(",")),
		jen.Id("b").Op("=").Qual(implPath, "AppendString").Call(jen.Id("b"), key),
		appendText(":"),
		jen.Id(elem).Op(":=").Add(m).Index(jen.Id(k)),
	}
	body = append(body, ee.value(owner+"Elem", u.Elem(), localTarget(elem), false, depth+1)...)
	return []jen.Code{
		jen.Id(keys).Op(":=").Make(jen.Index().Add(ee.names.typeExpr(u.Key())), jen.Lit(0), jen.Len(tg.val())),
		jen.For(jen.Id(k).Op(":=").Range().Add(tg.val())).Block(
			jen.Id(keys).Op("=").Append(jen.Id(keys), jen.Id(k)),
		),
		jen.Qual("slices", "Sort").Call(jen.Id(keys)),
		appendText("{"),
		jen.For(jen.List(jen.Id(i), jen.Id(k)).Op(":=").Range().Id(keys)).Block(body...),
		appendText("}"),
	}
}

// elementAt is the target x[i] of a slice or array x at tg: (*p)[i] when
// x is what a pointer points to (a pointer to a slice cannot be indexed).
func elementAt(tg target, i string) target {
	v := func() *jen.Statement {
		if tg.deref {
			return jen.Parens(tg.val()).Index(jen.Id(i))
		}
		return tg.val().Index(jen.Id(i))
	}
	return target{val: v, addr: func() *jen.Statement { return jen.Op("&").Add(v()) }}
}
