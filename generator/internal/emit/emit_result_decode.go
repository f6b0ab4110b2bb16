package emit

import (
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// The result decoders: for each result type of a file's methods, a
// generated function the clients decode the result with, reading it as
// encoding/json would (rpcimpl.NewResultDecoder: unknown keys skipped, keys
// matched case-insensitively, null read as the zero value, no schema
// checks). They are written by a decodeEmitter in lenient mode, whose
// struct helpers are apart from the params' strict ones. A result type the
// generator cannot read (a non-empty interface, a complex number) gets no
// function: its client decodes it with json.Unmarshal, as before.

// newResultEmitter returns the result decoders' emitter of the file params
// decodes into, sharing its names.
func newResultEmitter(params *decodeEmitter) *decodeEmitter {
	return &decodeEmitter{
		file: params.file, sg: params.sg, helpers: map[string]string{}, patterns: params.patterns,
		taken: params.taken, lenient: true, results: map[string]string{},
	}
}

// resultFn is a pending result decode function: what it reads, into what.
type resultFn struct {
	name string
	sc   *decodeScope
	t    types.Type
	m    *model.Method
}

// resultDecoder returns the name of the function decoding m's result, a
// func(*rpcimpl.Decoder, *R), naming it (and queueing it to be written by
// flush) the first time a result of its type is met; "" when the result
// is left to json.Unmarshal.
func (de *decodeEmitter) resultDecoder(svc *model.Service, m *model.Method) string {
	t := m.Result
	if t == nil || !de.canDecode(t, map[types.Type]bool{}) {
		return ""
	}
	key := schema.TypeKey(t)
	if name, ok := de.results[key]; ok {
		return name
	}
	sc := &decodeScope{d: func() *jen.Statement { return jen.Id("d") }, owner: svc.Name + m.Name + "Result", path: svc.Name + "." + m.Name + "'s result"}
	if st, ok := t.Underlying().(*types.Struct); ok && specialReader(t) == "" && !decodesItself(t) {
		// The struct's own helper has the signature.
		name := de.helperFor(sc, t, st)
		de.results[key] = name
		return name
	}
	base := sc.owner
	if n, ok := types.Unalias(t).(*types.Named); ok {
		base = exportedName(n, de.sg.Pkg.Types) + "Result"
	}
	name := de.name("decode" + base)
	de.results[key] = name
	de.pendingResults = append(de.pendingResults, resultFn{name: name, sc: sc, t: t, m: m})
	return name
}

// resultFunc writes a pending result decode function.
func (de *decodeEmitter) resultFunc(r resultFn) {
	p := target{val: func() *jen.Statement { return jen.Op("*").Id("p") }, addr: func() *jen.Statement { return jen.Id("p") }, deref: true}
	body := de.value(r.sc, r.t, nil, p, false, 1, r.m.Pos)
	f := de.file
	f.Line()
	f.Commentf("%s reads a result of %s into p, as encoding/json would.", r.name, r.sc.path[:len(r.sc.path)-len("'s result")])
	f.Func().Id(r.name).Params(
		jen.Id("d").Op("*").Qual(implPath, "Decoder"),
		jen.Id("p").Op("*").Add(de.typeExpr(r.t)),
	).Block(body...)
}

// decodesItself reports whether encoding/json decodes t with t's own method.
func decodesItself(t types.Type) bool {
	return model.Implements(t, "UnmarshalJSON") || model.Implements(t, "UnmarshalText")
}

// canDecode reports whether value can read a t without reporting a
// problem; seen holds the struct types on the way (recursive types).
func (de *decodeEmitter) canDecode(t types.Type, seen map[types.Type]bool) bool {
	if specialReader(t) != "" || decodesItself(t) {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return de.canDecode(u.Elem(), seen)
	case *types.Basic:
		_, ok := scalarReaders[u.Kind()]
		return ok
	case *types.Slice:
		return schema.IsByte(u.Elem()) || de.canDecode(u.Elem(), seen)
	case *types.Array:
		return de.canDecode(u.Elem(), seen)
	case *types.Map:
		if kb, ok := u.Key().Underlying().(*types.Basic); !ok || kb.Info()&types.IsString == 0 || model.Implements(u.Key(), "UnmarshalText") {
			return true // encoding/json reads it
		}
		return de.canDecode(u.Elem(), seen)
	case *types.Interface:
		return u.NumMethods() == 0
	case *types.Struct:
		if seen[t] {
			return true
		}
		seen[t] = true
		fields, err := de.sg.FieldsOf(u)
		if err != nil {
			return false
		}
		for _, fl := range fields {
			cur := u
			for i := 0; i < len(fl.Names)-1; i++ {
				sf := cur.Field(fl.Index[i])
				ft := types.Unalias(sf.Type())
				if fl.EmbedPtr[i] {
					if !de.nameable(sf) {
						return false
					}
					ft = ft.(*types.Pointer).Elem()
				}
				cur = ft.Underlying().(*types.Struct)
			}
			if !de.canDecode(fl.Type, seen) {
				return false
			}
		}
		return true
	}
	return false
}
