package model

import (
	"fmt"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/internal/suggest"
)

// lookupInterface finds the type a command-line name means: an interface
// of the package ("TodoService") or, qualified, of another package
// ("example.com/todo.TodoService", or "todo.TodoService" for a package the
// files import as todo). A name that matches nothing is reported with the
// interfaces the package has and the nearest of them.
func (b *builder) lookupInterface(name string) *types.TypeName {
	q, typeName := load.SplitQualified(name)
	scope, where := b.pkg.Types.Scope(), fmt.Sprintf("package %s (%s)", b.pkg.Name, b.pkg.PkgPath)
	if q != "" {
		p, err := load.Foreign(b.pkg, q)
		if err != nil {
			// go list's own words can run over lines; one message is one line.
			msg := strings.Join(strings.Fields(err.Error()), " ")
			b.errs.List = append(b.errs.List, &diag.Error{Msg: fmt.Sprintf("%s: %s", name, msg)})
			return nil
		}
		scope, where = p.Scope(), fmt.Sprintf("package %s (%s)", p.Name(), p.Path())
	}
	obj := scope.Lookup(typeName)
	if obj == nil {
		names := interfaceNames(scope, q != "")
		msg := fmt.Sprintf("no type %s in %s", typeName, where)
		switch near, ok := suggest.Nearest(typeName, names); {
		case len(names) == 0:
			msg += ", which declares no interfaces"
		case ok:
			msg += fmt.Sprintf("; did you mean %s? Its interfaces: %s", qualify(q, near), strings.Join(names, ", "))
		default:
			msg += fmt.Sprintf(". Its interfaces: %s", strings.Join(names, ", "))
		}
		b.errs.List = append(b.errs.List, &diag.Error{Msg: msg})
		return nil
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		b.errs.At(obj.Pos(), "%s is a %s, not an interface type", name, objectKind(obj))
		return nil
	}
	if q != "" && !tn.Exported() {
		b.errs.List = append(b.errs.List, &diag.Error{Msg: fmt.Sprintf("%s is not exported: code outside package %s cannot name it", name, tn.Pkg().Name())})
		return nil
	}
	return tn
}

func qualify(q, name string) string {
	if q == "" {
		return name
	}
	return q + "." + name
}

// interfaceNames lists the interface types of a scope (the exported ones
// only, for another package's), sorted.
func interfaceNames(scope *types.Scope, exportedOnly bool) []string {
	var names []string
	for _, n := range scope.Names() {
		tn, ok := scope.Lookup(n).(*types.TypeName)
		if !ok || (exportedOnly && !tn.Exported()) {
			continue
		}
		if it, ok := tn.Type().Underlying().(*types.Interface); ok && it.IsMethodSet() && it.NumMethods() > 0 {
			names = append(names, n)
		}
	}
	return names
}

// typeNameOf is the declaration behind a named type, an alias, or an
// instance of a generic type (its generic declaration); nil for others.
func typeNameOf(t types.Type) *types.TypeName {
	switch t := t.(type) {
	case *types.Alias:
		return t.Obj()
	case *types.Named:
		return t.Origin().Obj()
	}
	return nil
}

// serviceChain is the service's declaration followed by the declarations it
// stands for: what an alias names, and the one interface an interface
// embeds when it embeds exactly one. The service's //rpcgen:service and
// //rpcgen:schema keys are read along it, the outer over the inner, so that
// `type Todo interface{ todo.TodoService }` and `type Todo = todo.TodoService`
// keep what todo.TodoService's own directives say.
func serviceChain(obj *types.TypeName) []*types.TypeName {
	var out []*types.TypeName
	for obj != nil && !slices.Contains(out, obj) {
		out = append(out, obj)
		var next *types.TypeName
		switch t := obj.Type().(type) {
		case *types.Alias:
			next = typeNameOf(t.Rhs())
		default:
			if it, ok := t.Underlying().(*types.Interface); ok && it.NumEmbeddeds() == 1 {
				next = typeNameOf(it.EmbeddedType(0))
			}
		}
		obj = next
	}
	return out
}

// sameMethod reports whether a and b are the same interface method: the
// same object, or, for an instance of a generic interface, the same
// declaration.
func sameMethod(a, b *types.Func) bool {
	return a == b || (a.Name() == b.Name() && a.Pos() == b.Pos())
}

// hasMethod reports whether the method set of t holds fn.
func hasMethod(t types.Type, fn *types.Func) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := range it.NumMethods() {
		if sameMethod(it.Method(i), fn) {
			return true
		}
	}
	return false
}

// link is one step from a service to one of its methods: a declaration
// (an interface type or an alias), and, when the method comes from what it
// embeds, the embedded element of its interface literal that leads on.
type link struct {
	obj   *types.TypeName
	embed int // index of the embedded element leading on, -1 when the method is its own or obj is an alias
}

// methodPath returns the declarations from t, the service's type, to the
// interface declaring fn, outermost first: every interface (or alias) whose
// doc comment may name the method in a directive.
func methodPath(t types.Type, fn *types.Func) []link {
	var path []link
	for range 100 { // embedding cannot cycle; the bound is a guard
		obj := typeNameOf(t)
		if a, ok := t.(*types.Alias); ok {
			path = append(path, link{obj: obj, embed: -1})
			t = a.Rhs()
			continue
		}
		it, ok := t.Underlying().(*types.Interface)
		if !ok {
			return path
		}
		here := len(path)
		if obj != nil {
			path = append(path, link{obj: obj, embed: -1})
		}
		for i := range it.NumExplicitMethods() {
			if sameMethod(it.ExplicitMethod(i), fn) {
				return path
			}
		}
		next := -1
		for i := range it.NumEmbeddeds() {
			if hasMethod(it.EmbeddedType(i), fn) {
				next = i
				break
			}
		}
		if next < 0 {
			return path
		}
		if obj != nil {
			path[here].embed = next
		}
		t = it.EmbeddedType(next)
	}
	return path
}

// readOnlySource reports whether a file is one the user does not edit: the
// Go installation's (export data names it $GOROOT/...) or a module's in the
// module cache (a directory named path@version).
func readOnlySource(filename string) bool {
	if strings.HasPrefix(filename, "$GOROOT") {
		return true
	}
	for _, elem := range strings.Split(filepath.ToSlash(filepath.Dir(filename)), "/") {
		if strings.Contains(elem, "@v") {
			return true
		}
	}
	return false
}

// userPos is where a problem with the method fn of a service is reported:
// where fn is declared, unless that is in a file the user does not edit
// and the service's declarations in the package embed it, which is then
// the place: the embedded element of the innermost local declaration on
// the way to fn (or the alias naming it).
func (b *builder) userPos(path []link, fn *types.Func) (token.Pos, bool) {
	if !readOnlySource(b.pkg.Fset.Position(fn.Pos()).Filename) {
		return token.NoPos, false
	}
	for i := len(path) - 1; i >= 0; i-- {
		l := path[i]
		if !b.idx.isLocal(l.obj.Pos()) {
			continue
		}
		d := b.idx.typeDecl(l.obj)
		if d == nil {
			return l.obj.Pos(), true
		}
		if fields := embeddedFields(d.iface); l.embed >= 0 && l.embed < len(fields) {
			return fields[l.embed].Pos(), true
		}
		return d.typ.Pos(), true
	}
	return token.NoPos, false
}

// redirect moves the problems reported since before at positions in fn's
// read-only file to pos, saying where they come from.
func (b *builder) redirect(before int, fn *types.Func, pos token.Pos) {
	from := b.pkg.Fset.Position(fn.Pos())
	at := b.pkg.Fset.Position(pos)
	where := fmt.Sprintf(" (in %s.%s, %s:%d)", typeString(fn), fn.Name(), from.Filename, from.Line)
	for _, e := range b.errs.List[before:] {
		if e.Pos.Filename == from.Filename {
			e.Pos = at
			e.Msg += where
		}
	}
}

// typeString names the interface declaring fn, as a reader writes it: "io.Reader".
func typeString(fn *types.Func) string {
	recv := fn.Signature().Recv()
	if recv == nil {
		return fn.Pkg().Name()
	}
	return types.TypeString(recv.Type(), func(p *types.Package) string { return p.Name() })
}
