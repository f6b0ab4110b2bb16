package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
)

// sourceIndex finds the declarations behind go/types objects, for their doc
// comments and directives: type names and interface methods, in the
// package's own syntax and in the source of other packages, whose files are
// parsed the first time one of their declarations is asked about (their
// types come from export data, which keeps each object's file and line but
// no comments). Declarations are found by file, line and name, as export
// data keeps no columns. The standard library's files are not read: their
// docs describe a Go API, not a service, and export data names them by a
// $GOROOT path that is not a file.
type sourceIndex struct {
	fset  *token.FileSet
	files map[string]*fileDecls // by file name; nil for a file that cannot be read
	read  func(name string) ([]byte, error)
}

// fileDecls are the declarations of one file, by line and name.
type fileDecls struct {
	local   bool // a file of the package being generated
	types   map[lineName]*typeDecl
	methods map[lineName]*methodDecl
}

type lineName struct {
	line int
	name string
}

// typeDecl is one type declaration.
type typeDecl struct {
	name  *ast.Ident
	doc   *ast.CommentGroup
	typ   ast.Expr
	iface *ast.InterfaceType // nil when the type is not an interface literal
}

// methodDecl is one method of an interface type literal.
type methodDecl struct {
	name *ast.Ident
	doc  *ast.CommentGroup
}

func newSourceIndex(fset *token.FileSet, files []*ast.File, read func(string) ([]byte, error)) *sourceIndex {
	x := &sourceIndex{fset: fset, files: map[string]*fileDecls{}, read: read}
	for _, f := range files {
		name := fset.Position(f.Pos()).Filename
		x.files[name] = x.collect(f, true)
	}
	return x
}

// file returns the declarations of the file holding pos, parsing it on
// first use; nil when it cannot be read.
func (x *sourceIndex) file(pos token.Pos) (*fileDecls, token.Position) {
	p := x.fset.Position(pos)
	if !pos.IsValid() || p.Filename == "" {
		return nil, p
	}
	fd, seen := x.files[p.Filename]
	if seen {
		return fd, p
	}
	x.files[p.Filename] = nil
	if strings.HasPrefix(p.Filename, "$GOROOT") || x.read == nil {
		return nil, p
	}
	src, err := x.read(p.Filename)
	if err != nil {
		return nil, p
	}
	// Into the package's file set, so that a directive's problems in this
	// file are reported at their position like any other.
	f, err := parser.ParseFile(x.fset, p.Filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, p
	}
	fd = x.collect(f, false)
	x.files[p.Filename] = fd
	return fd, p
}

// typeDecl returns the declaration of the type obj names, or nil.
func (x *sourceIndex) typeDecl(obj *types.TypeName) *typeDecl {
	fd, p := x.file(obj.Pos())
	if fd == nil {
		return nil
	}
	return fd.types[lineName{p.Line, obj.Name()}]
}

// method returns the declaration of the interface method fn, or nil.
func (x *sourceIndex) method(fn *types.Func) *methodDecl {
	fd, p := x.file(fn.Pos())
	if fd == nil {
		return nil
	}
	return fd.methods[lineName{p.Line, fn.Name()}]
}

// isLocal reports whether pos lies in a file of the package being generated.
func (x *sourceIndex) isLocal(pos token.Pos) bool {
	fd, _ := x.file(pos)
	return fd != nil && fd.local
}

// collect indexes the type declarations of f and the methods of its
// interface type literals, at any depth.
func (x *sourceIndex) collect(f *ast.File, local bool) *fileDecls {
	fd := &fileDecls{local: local, types: map[lineName]*typeDecl{}, methods: map[lineName]*methodDecl{}}
	key := func(id *ast.Ident) lineName { return lineName{x.fset.Position(id.Pos()).Line, id.Name} }
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			doc := ts.Doc
			if doc == nil && !gd.Lparen.IsValid() {
				doc = gd.Doc
			}
			it, _ := ts.Type.(*ast.InterfaceType)
			fd.types[key(ts.Name)] = &typeDecl{name: ts.Name, doc: doc, typ: ts.Type, iface: it}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		it, ok := n.(*ast.InterfaceType)
		if !ok || it.Methods == nil {
			return true
		}
		for _, field := range it.Methods.List {
			for _, name := range field.Names {
				fd.methods[key(name)] = &methodDecl{name: name, doc: field.Doc}
			}
		}
		return true
	})
	return fd
}

// embeddedFields returns the embedded elements of an interface type
// literal, in source order: the order of types.Interface.EmbeddedType.
func embeddedFields(it *ast.InterfaceType) []ast.Expr {
	if it == nil || it.Methods == nil {
		return nil
	}
	var out []ast.Expr
	for _, field := range it.Methods.List {
		if len(field.Names) == 0 {
			out = append(out, field.Type)
		}
	}
	return out
}
