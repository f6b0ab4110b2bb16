package emit

import (
	"encoding/json"
	"go/token"
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// The result encoders: for the result type of each method with a result of
// its own (emitter.encoder: not a stream, not MCP content), a generated
// function appending the result's JSON to a buffer, func(b []byte, v *R)
// []byte (the MCP server's, for a tool's Append; a pooled rpcimpl.Buffer,
// for the JSON-RPC dispatcher's serve<Method>), which writes the bytes
// encoding/json writes (rpcimpl.AppendResult's, HTML escaping included)
// with no reflection. Struct types get one function each, shared by every
// result that holds them. A value within the result that the generator does
// not write itself (an interface's, a type's with its own MarshalJSON or
// MarshalText, a recursive struct type's, a map's keyed by other than
// strings) is left to encoding/json in place (rpcimpl.AppendAny); a result
// type that is one of those gets no encoder, and its method encodes with
// rpcimpl.AppendResult or Result, as before. The rpcimpl pieces the
// encoders call panic on what encoding/json refuses (NaN, say), and the
// method then encodes the result again with AppendResult or Result, which
// returns encoding/json's error (rpcimpl.EncodeFailed); a method whose
// result's encoder calls none of those (fails) has no deferred fallback.

// encodeEmitter writes the result encoders of one file.
type encodeEmitter struct {
	file    *jen.File
	sg      *schema.Builder
	names   *decodeEmitter    // names functions, sharing the decoders' names
	helpers map[string]string // type key -> name of its encode function
	cycles  map[string]bool   // type key -> whether the struct type holds itself
	failing map[string]bool   // type key -> whether its encoder can fail (fails)
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
	return &encodeEmitter{file: de.file, sg: de.sg, names: de, helpers: map[string]string{}, cycles: map[string]bool{}, failing: map[string]bool{}}
}

// resultEncoder returns the name of the function encoding m's result,
// naming it (and queueing it to be written by flush) the first time a
// result of its type is met; "" when the result is left to AppendResult.
func (ee *encodeEmitter) resultEncoder(svc *model.Service, m *model.Method) string {
	t := m.Result
	if t == nil || !ee.canEncode(t) {
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

// canEncode reports whether a result of type t gets an encoder: t is one
// the encoders write themselves (direct), and every struct they write
// within it has members they can reach and test (omitzero).
func (ee *encodeEmitter) canEncode(t types.Type) bool {
	return ee.direct(t) && ee.testable(t, map[types.Type]bool{})
}

// direct reports whether value writes a t itself, rather than leaving it
// to encoding/json (rpcimpl.AppendAny): an interface, a type with its own
// MarshalJSON or MarshalText, a struct type that holds itself (encoding/json
// stops at a cycle, where generated code would recurse until the stack
// overflows), a map keyed by other than strings, a slice of a named byte
// type, a kind encoding/json refuses. A pointer, slice, array or map is
// written directly, its elements as they are.
func (ee *encodeEmitter) direct(t types.Type) bool {
	if specialReader(t) != "" {
		return true
	}
	if _, ok := t.Underlying().(*types.Pointer); ok {
		return true // null, or the element as it is written
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
		return true
	case *types.Array:
		return true
	case *types.Map:
		kb, ok := u.Key().Underlying().(*types.Basic)
		return ok && kb.Info()&types.IsString != 0
	case *types.Struct:
		_, err := ee.sg.FieldsOf(u)
		return err == nil && !ee.cyclic(t)
	}
	return false
}

// fails reports whether the encoder of a t can reach an rpcimpl piece that
// fails on what encoding/json refuses (see rpcimpl.EncodeFailed): a float
// (NaN, an infinity), a time, raw JSON, a json.Number, or a value left to
// encoding/json (rpcimpl.AppendAny). Strings, booleans, integers, bytes and
// what holds only those never fail: their method encodes the result with
// no deferred fallback. It follows valueOf.
func (ee *encodeEmitter) fails(t types.Type) bool {
	key := schema.TypeKey(t)
	if f, ok := ee.failing[key]; ok {
		return f
	}
	ee.failing[key] = false // a struct type met again within itself adds nothing
	f := ee.reachesFail(t)
	ee.failing[key] = f
	return f
}

func (ee *encodeEmitter) reachesFail(t types.Type) bool {
	if !ee.direct(t) || specialReader(t) != "" {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return ee.fails(u.Elem())
	case *types.Basic:
		return u.Info()&types.IsFloat != 0
	case *types.Slice:
		if _, ok := u.Elem().Underlying().(*types.Basic); ok && schema.IsByte(u.Elem()) {
			return false // base64
		}
		return ee.fails(u.Elem())
	case *types.Array:
		return ee.fails(u.Elem())
	case *types.Map:
		return ee.fails(u.Elem())
	case *types.Struct:
		fields, _ := ee.sg.FieldsOf(u)
		for _, fl := range fields {
			if ee.fails(fl.Type) {
				return true
			}
		}
	}
	return false
}

// cyclic reports whether the struct type t holds itself, through fields,
// pointers and containers.
func (ee *encodeEmitter) cyclic(t types.Type) bool {
	key := schema.TypeKey(t)
	if c, ok := ee.cycles[key]; ok {
		return c
	}
	seen := map[types.Type]bool{}
	var reaches func(u types.Type) bool
	reaches = func(u types.Type) bool {
		switch u := types.Unalias(u).(type) {
		case *types.Pointer:
			return reaches(u.Elem())
		case *types.Slice:
			return reaches(u.Elem())
		case *types.Array:
			return reaches(u.Elem())
		case *types.Map:
			return reaches(u.Key()) || reaches(u.Elem())
		case *types.Named:
			if types.Identical(u, t) {
				return true
			}
			if seen[u] {
				return false
			}
			seen[u] = true
			return reaches(u.Underlying())
		case *types.Struct:
			for i := range u.NumFields() {
				if reaches(u.Field(i).Type()) {
					return true
				}
			}
		}
		return false
	}
	c := false
	if st, ok := t.Underlying().(*types.Struct); ok {
		for i := range st.NumFields() {
			c = c || reaches(st.Field(i).Type())
		}
	}
	ee.cycles[key] = c
	return c
}

// testable reports whether the struct helpers for t, and those they call,
// can be written: every member reached through embedded pointers they can
// name, every omitzero member's zero tested as encoding/json tests it.
func (ee *encodeEmitter) testable(t types.Type, seen map[types.Type]bool) bool {
	if !ee.direct(t) || specialReader(t) != "" {
		return true // encoding/json writes it
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return ee.testable(u.Elem(), seen)
	case *types.Slice:
		return ee.testable(u.Elem(), seen)
	case *types.Array:
		return ee.testable(u.Elem(), seen)
	case *types.Map:
		return ee.testable(u.Elem(), seen)
	case *types.Struct:
		if seen[t] {
			return true
		}
		seen[t] = true
		fields, _ := ee.sg.FieldsOf(u)
		for _, fl := range fields {
			if !ee.reachable(u, fl) || fl.OmitZero && zeroTest(fl.Type) == zeroNone || !ee.testable(fl.Type, seen) {
				return false
			}
		}
	}
	return true
}

// reachable reports whether the struct helper of st can name every
// embedded pointer on the way to the field fl, to test it for nil.
func (ee *encodeEmitter) reachable(st *types.Struct, fl schema.Field) bool {
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
	return true
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
	if !ee.direct(t) {
		if _, ok := t.Underlying().(*types.Interface); ok {
			return impl("AppendAny", tg.val())
		}
		// By address: encoding/json calls a MarshalJSON or MarshalText
		// with a pointer receiver on a field, which it can address.
		return impl("AppendAny", tg.addr())
	}
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
