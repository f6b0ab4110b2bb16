package emit

import (
	"go/types"
	"reflect"
	"strconv"

	"github.com/dave/jennifer/jen"
)

// typeExpr writes t as Go source in the target package, registering the real
// name of every package it imports so that jennifer need not guess.
func (g *emitter) typeExpr(t types.Type) jen.Code {
	switch t := t.(type) {
	case *types.Alias:
		obj := t.Obj()
		if obj.Pkg() == nil { // any
			return jen.Id(obj.Name())
		}
		return g.qual(obj.Pkg(), obj.Name()).Add(g.typeArgs(t.TypeArgs()))
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil { // error
			return jen.Id(obj.Name())
		}
		return g.qual(obj.Pkg(), obj.Name()).Add(g.typeArgs(t.TypeArgs()))
	case *types.Basic:
		return jen.Id(t.Name())
	case *types.Pointer:
		return jen.Op("*").Add(g.typeExpr(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(g.typeExpr(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(g.typeExpr(t.Elem()))
	case *types.Map:
		return jen.Map(g.typeExpr(t.Key())).Add(g.typeExpr(t.Elem()))
	case *types.Interface:
		return jen.Any() // only the empty interface passes the type check
	case *types.Struct:
		return jen.StructFunc(func(fields *jen.Group) {
			for i := range t.NumFields() {
				f := t.Field(i)
				field := jen.Null()
				if !f.Embedded() {
					field = jen.Id(f.Name())
				}
				field.Add(g.typeExpr(f.Type()))
				if tag := t.Tag(i); tag != "" {
					field.Add(rawTag(tag))
				}
				fields.Add(field)
			}
		})
	}
	panic("rpcgen: unexpected type " + t.String()) // the type check rejects everything else
}

func (g *emitter) typeArgs(list *types.TypeList) jen.Code {
	if list.Len() == 0 {
		return jen.Null()
	}
	args := make([]jen.Code, list.Len())
	for i := range args {
		args[i] = g.typeExpr(list.At(i))
	}
	return jen.Types(args...)
}

func (g *emitter) qual(pkg *types.Package, name string) *jen.Statement {
	if pkg.Path() != g.pkgPath {
		g.file.ImportName(pkg.Path(), pkg.Name())
	}
	return jen.Qual(pkg.Path(), name)
}

// zeroValue is the literal a function returns for t on error: 0, "", false,
// nil, or T{}.
func (g *emitter) zeroValue(t types.Type) jen.Code {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return jen.False()
		case u.Info()&types.IsString != 0:
			return jen.Lit("")
		case u.Info()&types.IsNumeric != 0:
			return jen.Lit(0)
		}
	case *types.Struct, *types.Array:
		return jen.Add(g.typeExpr(t)).Values()
	}
	return jen.Nil()
}

// rawTag renders a struct tag as a raw string literal, as the user wrote it.
func rawTag(tag string) jen.Code {
	if strconv.CanBackquote(tag) {
		return jen.Op("`" + tag + "`")
	}
	return jen.Lit(tag)
}

// jsonTag is the tag of a generated params-struct field.
func jsonTag(key string) jen.Code {
	return rawTag(string(reflect.StructTag(`json:"` + key + `"`)))
}
