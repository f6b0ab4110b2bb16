package cache

import (
	"encoding/binary"
	"go/token"
	"go/types"
	"strconv"
)

// typeDigest writes types as go/types holds them: every named type's
// definition once (its type parameters, underlying type, methods, and for
// a dependency's type its position and its package's constants of that
// type, which become enums), so that any change to a type the generator
// can read changes the key.
type typeDigest struct {
	w       *keyWriter
	fset    *token.FileSet
	self    *types.Package
	seen    map[*types.TypeName]bool
	tparams map[*types.TypeParam]bool
	pending []types.Type // named types and aliases to define
	consts  map[*types.Package][]*types.Const
}

func (d *typeDigest) drain() {
	for len(d.pending) > 0 {
		t := d.pending[len(d.pending)-1]
		d.pending = d.pending[:len(d.pending)-1]
		d.define(t)
	}
}

// pos writes where obj is declared when it is a dependency's: doc comments
// are found by position, and the generator orders constants by it. The
// package's own positions move with every edit and decide nothing that its
// files do not.
func (d *typeDigest) pos(obj types.Object) {
	if obj.Pkg() == d.self {
		return
	}
	p := d.fset.Position(obj.Pos())
	d.w.str(p.Filename)
	d.w.num(p.Line)
	d.w.num(p.Column)
}

func (d *typeDigest) objName(obj types.Object) {
	if obj.Pkg() != nil {
		d.w.str(obj.Pkg().Path())
		d.w.str(obj.Pkg().Name())
	} else {
		d.w.str("")
	}
	d.w.str(obj.Name())
}

func (d *typeDigest) typ(t types.Type) {
	w := d.w
	switch t := t.(type) {
	case nil:
		w.str("nil")
	case *types.Basic:
		w.str("basic " + t.Name())
	case *types.Pointer:
		w.str("*")
		d.typ(t.Elem())
	case *types.Slice:
		w.str("[]")
		d.typ(t.Elem())
	case *types.Array:
		w.str("[n]")
		w.buf = binary.AppendVarint(w.buf, t.Len())
		w.flush()
		d.typ(t.Elem())
	case *types.Map:
		w.str("map")
		d.typ(t.Key())
		d.typ(t.Elem())
	case *types.Chan:
		w.str("chan")
		w.num(int(t.Dir()))
		d.typ(t.Elem())
	case *types.Tuple:
		w.num(t.Len())
		for v := range t.Variables() {
			w.str(v.Name())
			d.typ(v.Type())
		}
	case *types.Signature:
		w.str("func")
		d.typeParams(t.TypeParams())
		d.typ(t.Params())
		d.typ(t.Results())
		w.str(strconv.FormatBool(t.Variadic()))
	case *types.Struct:
		w.str("struct")
		w.num(t.NumFields())
		for i := range t.NumFields() {
			f := t.Field(i)
			w.str(f.Name())
			w.str(strconv.FormatBool(f.Embedded()))
			w.str(t.Tag(i))
			d.pos(f)
			d.typ(f.Type())
		}
	case *types.Interface:
		w.str("interface")
		w.num(t.NumExplicitMethods())
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			w.str(m.Name())
			d.pos(m)
			d.typ(m.Type())
		}
		w.num(t.NumEmbeddeds())
		for i := range t.NumEmbeddeds() {
			d.typ(t.EmbeddedType(i))
		}
	case *types.Union:
		w.str("union")
		w.num(t.Len())
		for i := range t.Len() {
			w.str(strconv.FormatBool(t.Term(i).Tilde()))
			d.typ(t.Term(i).Type())
		}
	case *types.TypeParam:
		w.str("tparam " + t.Obj().Name())
		w.num(t.Index())
		if !d.tparams[t] {
			d.tparams[t] = true
			d.typ(t.Constraint())
		}
	case *types.Named:
		d.instance("named", t.Obj(), t.TypeArgs(), t.Origin())
	case *types.Alias:
		d.instance("alias", t.Obj(), t.TypeArgs(), t.Origin())
	default:
		w.str("unknown " + t.String())
	}
}

// instance writes a named type or an alias with its type arguments, and
// queues the definition of its origin.
func (d *typeDigest) instance(kind string, obj *types.TypeName, args *types.TypeList, origin types.Type) {
	d.w.str(kind)
	d.objName(obj)
	d.w.num(args.Len())
	for t := range args.Types() {
		d.typ(t)
	}
	if !d.seen[obj] {
		d.seen[obj] = true
		d.pending = append(d.pending, origin)
	}
}

func (d *typeDigest) typeParams(tps *types.TypeParamList) {
	d.w.num(tps.Len())
	for i := range tps.Len() {
		d.typ(tps.At(i))
	}
}

// define writes a named type's or an alias's definition.
func (d *typeDigest) define(t types.Type) {
	w := d.w
	switch t := t.(type) {
	case *types.Alias:
		w.str("define alias")
		d.objName(t.Obj())
		d.pos(t.Obj())
		d.typeParams(t.TypeParams())
		d.typ(t.Rhs())
	case *types.Named:
		obj := t.Obj()
		w.str("define")
		d.objName(obj)
		d.pos(obj)
		d.typeParams(t.TypeParams())
		d.typ(t.Underlying())
		w.num(t.NumMethods())
		for i := range t.NumMethods() {
			m := t.Method(i)
			w.str(m.Name())
			d.pos(m)
			d.typ(m.Type())
			if sig, ok := m.Type().(*types.Signature); ok && sig.Recv() != nil {
				_, ptr := sig.Recv().Type().(*types.Pointer)
				w.str(strconv.FormatBool(ptr))
			}
		}
		if obj.Pkg() != nil && obj.Pkg() != d.self {
			var enum []*types.Const
			for _, k := range d.constsOf(obj.Pkg()) {
				if types.Identical(k.Type(), t) {
					enum = append(enum, k)
				}
			}
			w.num(len(enum))
			for _, k := range enum {
				w.str(k.Name())
				w.str(k.Val().ExactString())
				d.pos(k)
			}
		}
	}
}

// constsOf lists the constants of p's scope as loaded, by name.
func (d *typeDigest) constsOf(p *types.Package) []*types.Const {
	if ks, ok := d.consts[p]; ok {
		return ks
	}
	if d.consts == nil {
		d.consts = map[*types.Package][]*types.Const{}
	}
	var ks []*types.Const
	for _, name := range p.Scope().Names() {
		if k, ok := p.Scope().Lookup(name).(*types.Const); ok {
			ks = append(ks, k)
		}
	}
	d.consts[p] = ks
	return ks
}
