package model

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// StatedSchema is a JSON Schema the user wrote for a named type of the
// package, named by //rpcgen:schema file=NAME on the type's declaration: the
// schema a tool publishes where the type is its arguments (the method's one
// struct param) or its result, instead of the one rpcgen derives. It says
// what Go types cannot, such as allOf, if/then/else or $anchor. The file is
// read and checked by package schema; generated validation still decodes the
// type as Go declares it.
type StatedSchema struct {
	Type *types.Named
	Name string    // the file as the directive names it
	File string    // absolute
	Pos  token.Pos // of the file= key
}

// statedSchemas finds the stated schemas of a package's named types,
// reading each type's directives once.
type statedSchemas struct {
	pkg   *packages.Package
	idx   *sourceIndex
	errs  *diag.Collector
	found map[*types.TypeName]*StatedSchema // nil answers included
	// aliases are the package's aliases, by the type they stand for.
	aliases map[string][]*types.TypeName
}

// of returns the stated schema of t (or of the type t points to), or nil:
// the schema of a tool's arguments or result. A type that encodes itself
// has its stated schema everywhere instead (see encoded).
func (s *statedSchemas) of(t types.Type) *StatedSchema {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() != s.pkg.Types {
		return nil
	}
	if _, isIface := n.Underlying().(*types.Interface); isIface {
		return nil // an interface's //rpcgen:schema sets options, read by buildService
	}
	if kind, _ := EncodingOf(n); kind != EncodesNone {
		return nil
	}
	return s.declared(n.Obj(), n)
}

// encoded returns the schema stated for n, a type that writes its own
// JSON, nil when there is none: in the doc comment of n's declaration when
// n is of this package, else of an alias of n that this package declares
// (type Decimal = decimal.Decimal). It is n's schema wherever n is used.
func (s *statedSchemas) encoded(n *types.Named) *StatedSchema {
	if n.Obj().Pkg() == s.pkg.Types {
		return s.declared(n.Obj(), n)
	}
	if s.aliases == nil {
		s.aliases = map[string][]*types.TypeName{}
		scope := s.pkg.Types.Scope()
		for _, name := range scope.Names() {
			if tn, ok := scope.Lookup(name).(*types.TypeName); ok && tn.IsAlias() {
				key := types.TypeString(types.Unalias(tn.Type()), nil)
				s.aliases[key] = append(s.aliases[key], tn)
			}
		}
	}
	for _, tn := range s.aliases[types.TypeString(n, nil)] {
		if st := s.declared(tn, n); st != nil {
			return st
		}
	}
	return nil
}

// declared returns the schema the declaration of obj states for n, or nil.
func (s *statedSchemas) declared(obj *types.TypeName, n *types.Named) *StatedSchema {
	if st, done := s.found[obj]; done {
		return st
	}
	var st *StatedSchema
	var doc *ast.CommentGroup
	if decl := s.idx.typeDecl(obj); decl != nil {
		doc = decl.doc
	}
	d := ParseDirectives(doc, "type", s.errs)["schema"]
	if v, pos, ok := d.value("file"); ok {
		switch {
		case v == "":
			s.errs.At(pos, "type %s: //rpcgen:schema file= needs a file name", obj.Name())
		case filepath.IsAbs(v) || !filepath.IsLocal(filepath.FromSlash(v)):
			s.errs.At(pos, "type %s: //rpcgen:schema file=%s: name a file in or below the package's directory, relative to it", obj.Name(), v)
		default:
			dir := filepath.Dir(s.pkg.Fset.Position(obj.Pos()).Filename)
			st = &StatedSchema{Type: n, Name: v, File: filepath.Join(dir, filepath.FromSlash(v)), Pos: pos}
		}
	}
	if s.found == nil {
		s.found = map[*types.TypeName]*StatedSchema{}
	}
	s.found[obj] = st
	return st
}

// attach sets m's stated input and output schemas and reports a type with
// a stated schema used anywhere else in m's signature: there rpcgen would
// have to describe it as derived, which would contradict the file.
func (s *statedSchemas) attach(m *Method) {
	var roots []types.Type
	if m.StructParams {
		m.StatedInput = s.of(m.Params[0].Type)
		roots = append(roots, m.Params[0].Type)
	}
	if m.Result != nil && !m.Stream && m.Content == ContentNone && m.Resource == nil && m.Prompt == nil && m.Completer == nil {
		m.StatedOutput = s.of(m.Result)
		roots = append(roots, m.Result)
	}
	seen := map[types.Type]bool{}
	var visit func(t types.Type, root bool, where string)
	visit = func(t types.Type, root bool, where string) {
		t = types.Unalias(t)
		if seen[t] {
			return
		}
		seen[t] = true
		if st := s.of(t); st != nil && !root {
			s.errs.At(st.Pos, "type %s: a stated schema (//rpcgen:schema file=) is used only where the type is a tool's arguments (a method's one struct param) or its result, but method %s also has it in %s", st.Type.Obj().Name(), m.Name, where)
		}
		switch u := t.(type) {
		case *types.Pointer:
			visit(u.Elem(), root, where)
			return
		case *types.Named:
			t = u.Underlying()
		}
		switch u := t.(type) {
		case *types.Struct:
			for i := range u.NumFields() {
				f := u.Field(i)
				visit(f.Type(), false, where+", field "+f.Name())
			}
		case *types.Slice:
			visit(u.Elem(), false, where+", as an element")
		case *types.Array:
			visit(u.Elem(), false, where+", as an element")
		case *types.Map:
			visit(u.Elem(), false, where+", as a map value")
		}
	}
	for _, p := range m.Params {
		visit(p.Type, m.StructParams, "parameter "+p.Name)
	}
	if m.Result != nil {
		visit(m.Result, slicesContains(roots, m.Result), "its result")
	}
}

func slicesContains(ts []types.Type, t types.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}
