package emit

import (
	"encoding/json"
	"go/token"
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// The result encoders: for the result type of each MCP tool that has an
// Append (emitter.appends), a generated function appending the result's
// JSON to the server's buffer, func(b []byte, v *R) []byte, which writes
// the bytes encoding/json writes (rpcimpl.AppendResult's, HTML escaping
// included) with no reflection. Struct types get one function each, shared
// by every result that holds them. A result type holding anything the
// generator does not write itself (an interface, a type with its own
// MarshalJSON or MarshalText, a recursive type, a map whose keys are not
// strings, a named byte type's slice) gets no encoder: its tool encodes
// with rpcimpl.AppendResult, as before. The rpcimpl pieces they call
// (AppendString, AppendFloat64, ...) panic on what encoding/json refuses
// (NaN, say), and the tool then encodes the result again with AppendResult,
// which returns encoding/json's error (rpcimpl.EncodeFailed).

// encodeEmitter writes the result encoders of one file.
type encodeEmitter struct {
	file    *jen.File
	sg      *schema.Builder
	names   *decodeEmitter    // names functions, sharing the decoders' names
	helpers map[string]string // type key -> name of its encode function
	pending []encodeFn        // functions named but not yet written
}

// encodeFn is a pending encode function: of a struct type (st set) or of a
// result type that is not a struct.
type encodeFn struct {
	name, desc string
	t          types.Type
	st         *types.Struct
}

func newEncodeEmitter(de *decodeEmitter) *encodeEmitter {
	return &encodeEmitter{file: de.file, sg: de.sg, names: de, helpers: map[string]string{}}
}

// resultEncoder returns the name of the function encoding m's result,
// naming it (and queueing it to be written by flush) the first time a
// result of its type is met; "" when the result is left to AppendResult.
func (ee *encodeEmitter) resultEncoder(svc *model.Service, m *model.Method) string {
	t := m.Result
	if t == nil || !ee.canEncode(t, map[types.Type]bool{}) {
		return ""
	}
	owner := svc.Name + m.Name + "Result"
	if st, ok := t.Underlying().(*types.Struct); ok && specialReader(t) == "" {
		return ee.helperFor(owner, svc.Name+"."+m.Name+"'s result", t, st)
	}
	key := schema.TypeKey(t)
	if name, ok := ee.helpers[key]; ok {
		return name
	}
	base := owner
	if n, ok := types.Unalias(t).(*types.Named); ok {
		base = exportedName(n, ee.sg.Pkg.Types)
	}
	name := ee.names.name("append" + base + "JSON")
	ee.helpers[key] = name
	ee.pending = append(ee.pending, encodeFn{name: name, desc: ee.sg.TypeString(t), t: t})
	return name
}

// helperFor returns the name of the encode function of the struct type t,
// naming it (and queueing it to be written) the first time.
func (ee *encodeEmitter) helperFor(owner, desc string, t types.Type, st *types.Struct) string {
	key := schema.TypeKey(t)
	if name, ok := ee.helpers[key]; ok {
		return name
	}
	base := owner
	if n, ok := types.Unalias(t).(*types.Named); ok {
		base, desc = exportedName(n, ee.sg.Pkg.Types), ee.sg.TypeString(t)
	}
	name := ee.names.name("append" + base + "JSON")
	ee.helpers[key] = name
	ee.pending = append(ee.pending, encodeFn{name: name, desc: desc, t: t, st: st})
	return name
}

// flush writes the functions named so far, and those they name in turn.
func (ee *encodeEmitter) flush() {
	for len(ee.pending) > 0 {
		fn := ee.pending[0]
		ee.pending = ee.pending[1:]
		var body []jen.Code
		if fn.st != nil {
			body = ee.structBody(fn)
		} else {
			v := target{val: func() *jen.Statement { return jen.Op("*").Id("v") }, addr: func() *jen.Statement { return jen.Id("v") }, deref: true}
			body = append(ee.value(fn.name, fn.t, v, false, 1), jen.Return(jen.Id("b")))
		}
		ee.file.Line()
		ee.file.Commentf("%s appends *v, of type %s, to b as encoding/json writes it.", fn.name, fn.desc)
		ee.file.Func().Id(fn.name).Params(
			jen.Id("b").Index().Byte(),
			jen.Id("v").Op("*").Add(ee.names.typeExpr(fn.t)),
		).Index().Byte().Block(body...)
	}
}

// canEncode reports whether value writes a t as encoding/json does;
// onStack holds the struct types on the way (a recursive type is left to
// encoding/json, which stops at a cycle where generated code would not).
func (ee *encodeEmitter) canEncode(t types.Type, onStack map[types.Type]bool) bool {
	if specialReader(t) != "" {
		return true
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		// A pointer has its element's methods: encoding/json writes null
		// for nil, else the element, whichever encodes it.
		return ee.canEncode(p.Elem(), onStack)
	}
	if model.Implements(t, "MarshalJSON") || model.Implements(t, "MarshalText") {
		return false
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Uint8 {
			// Base64 for []byte; a named byte type's slice is left to
			// encoding/json, and so is one whose bytes marshal themselves.
			eb, ok := types.Unalias(u.Elem()).(*types.Basic)
			return ok && eb.Kind() == types.Uint8
		}
		return ee.canEncode(u.Elem(), onStack)
	case *types.Array:
		return ee.canEncode(u.Elem(), onStack)
	case *types.Map:
		if kb, ok := u.Key().Underlying().(*types.Basic); !ok || kb.Info()&types.IsString == 0 {
			return false
		}
		return ee.canEncode(u.Elem(), onStack)
	case *types.Struct:
		if onStack[t] {
			return false
		}
		onStack[t] = true
		defer delete(onStack, t)
		fields, err := ee.sg.FieldsOf(u)
		if err != nil {
			return false
		}
		for _, fl := range fields {
			if !ee.canEncodeField(u, fl, onStack) {
				return false
			}
		}
		return true
	}
	return false
}

// canEncodeField reports whether the struct helper writes the field fl of
// st: a type it encodes, reached through embedded structs it can name, an
// omitzero it can test.
func (ee *encodeEmitter) canEncodeField(st *types.Struct, fl schema.Field, onStack map[types.Type]bool) bool {
	cur := st
	for i := 0; i < len(fl.Names)-1; i++ {
		sf := cur.Field(fl.Index[i])
		ft := types.Unalias(sf.Type())
		if fl.EmbedPtr[i] {
			if !ee.names.nameable(sf) {
				return false
			}
			ft = ft.(*types.Pointer).Elem()
		}
		cur = ft.Underlying().(*types.Struct)
	}
	if fl.OmitZero && zeroTest(fl.Type) == zeroNone {
		return false
	}
	return ee.canEncode(fl.Type, onStack)
}

// jsonKey is the text encoding/json writes before a member's value: the
// key as a JSON string, HTML-escaped, and a colon.
func jsonKey(key string) string {
	b, err := json.Marshal(key)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b) + ":"
}

// value returns the statements appending x, the value at tg of type t, to
// b; quoted is the ",string" option. owner names the helper of an unnamed
// struct type; depth numbers the locals of nested containers.
func (ee *encodeEmitter) value(owner string, t types.Type, tg target, quoted bool, depth int) []jen.Code {
	return ee.valueOf(owner, t, tg, quoted, depth, false)
}

// valueOf is value; set says that x is not nil when a pointer, slice or
// map (a field omitted when it is).
func (ee *encodeEmitter) valueOf(owner string, t types.Type, tg target, quoted bool, depth int, set bool) []jen.Code {
	nullOr := func(code []jen.Code) []jen.Code {
		if set {
			return code
		}
		return []jen.Code{jen.If(tg.val().Op("==").Nil()).Block(appendText("null")).Else().Block(code...)}
	}
	b := func() *jen.Statement { return jen.Id("b") }
	assign := func(call jen.Code) []jen.Code { return []jen.Code{b().Op("=").Add(call)} }
	impl := func(fn string, x jen.Code) []jen.Code { return assign(jen.Qual(implPath, fn).Call(b(), x)) }
	switch specialReader(t) {
	case "Time":
		return impl("AppendTime", tg.val())
	case "RawMessage":
		return impl("AppendRawMessage", tg.val())
	case "Number":
		return quote(quoted, impl("AppendNumber", tg.val()))
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return nullOr(ee.value(owner, u.Elem(), tg.elemOf(), quoted, depth))
	case *types.Basic:
		x := func(kind string) jen.Code {
			if bt, ok := types.Unalias(t).(*types.Basic); ok && bt.Name() == kind {
				return tg.val()
			}
			return jen.Id(kind).Call(tg.val())
		}
		switch info := u.Info(); {
		case info&types.IsString != 0 && quoted:
			return impl("AppendQuotedString", x("string"))
		case info&types.IsString != 0:
			return impl("AppendString", x("string"))
		case info&types.IsBoolean != 0:
			return quote(quoted, assign(jen.Qual("strconv", "AppendBool").Call(b(), x("bool"))))
		case info&types.IsFloat != 0 && u.Kind() == types.Float32:
			return quote(quoted, impl("AppendFloat32", x("float32")))
		case info&types.IsFloat != 0:
			return quote(quoted, impl("AppendFloat64", x("float64")))
		case info&types.IsUnsigned != 0:
			return quote(quoted, assign(jen.Qual("strconv", "AppendUint").Call(b(), x("uint64"), jen.Lit(10))))
		}
		return quote(quoted, assign(jen.Qual("strconv", "AppendInt").Call(b(), x("int64"), jen.Lit(10))))
	case *types.Struct:
		return assign(jen.Id(ee.helperFor(owner, owner, t, u)).Call(b(), tg.addr()))
	case *types.Slice:
		if _, ok := u.Elem().Underlying().(*types.Basic); ok && schema.IsByte(u.Elem()) {
			x := tg.val()
			if _, unnamed := types.Unalias(t).(*types.Slice); !unnamed {
				x = jen.Index().Byte().Call(x) // a named []byte type
			}
			return impl("AppendBytes", x)
		}
		return nullOr(ee.elements(owner, u.Elem(), tg, depth))
	case *types.Array:
		return ee.elements(owner, u.Elem(), tg, depth)
	case *types.Map:
		return nullOr(ee.members(owner, u, tg, depth))
	}
	ee.sg.Errorf(token.Position{}, "cannot encode a value of type "+ee.sg.TypeString(t))
	return nil
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
	body = append(body, ee.value(owner+"Elem", elem, tg.index(i), false, depth+1)...)
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
