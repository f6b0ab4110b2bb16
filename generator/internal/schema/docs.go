package schema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// DocIndex finds the doc comments of declarations by their position: struct
// fields, type names and constants, in the loaded package and in the packages
// it imports. The loaded package's own syntax is used as is; another
// package's file is parsed the first time one of its declarations is asked
// about, as go/packages gives dependencies as export data, which keeps
// positions (file and line, not column) but not comments. Standard library
// declarations get no doc: theirs describe a Go API, not the data.
type DocIndex struct {
	fset   *token.FileSet
	files  map[string]map[docKey]string // file name -> declared name -> doc text
	parsed map[string]bool
	// log, when not nil, records what the generator read beyond the loaded
	// package: the generation cache checks it before reusing an output.
	Log *InputLog
}

// Inputs is the log of what the generator read, or nil.
func (d *DocIndex) Inputs() *InputLog {
	if d == nil {
		return nil
	}
	return d.Log
}

// docKind says what a declared name is, as two kinds may share a line
// ("type P struct{ X int }").
type docKind byte

const (
	docType docKind = iota
	docConst
	docField
)

// docKey locates a declared name in one file. Names from export data have
// no column: they are found by line, col 0, the first of their kind there.
type docKey struct {
	kind      docKind
	line, col int
}

// NewDocIndex indexes the doc comments of the package parsed into syntax;
// dependencies' files are read when first asked about.
func NewDocIndex(fset *token.FileSet, syntax []*ast.File) *DocIndex {
	d := &DocIndex{fset: fset, files: map[string]map[docKey]string{}, parsed: map[string]bool{}}
	for _, f := range syntax {
		name := fset.Position(f.Pos()).Filename
		d.parsed[name] = true
		d.files[name] = d.collect(fset, f)
	}
	return d
}

// doc returns the doc comment of the declaration of the given kind whose
// name is at pos, or its line comment when it has no doc comment, with
// directives removed; "" when there is none or the source cannot be read.
func (d *DocIndex) doc(kind docKind, pos token.Pos) string {
	if d == nil || !pos.IsValid() {
		return ""
	}
	p := d.fset.Position(pos)
	if p.Filename == "" || strings.HasPrefix(p.Filename, "$GOROOT") {
		return ""
	}
	if !d.parsed[p.Filename] {
		d.parsed[p.Filename] = true
		src, err := os.ReadFile(p.Filename)
		d.Inputs().ReadFile(p.Filename, src, err)
		fset := token.NewFileSet()
		if err != nil {
			return ""
		}
		if f, err := parser.ParseFile(fset, p.Filename, src, parser.ParseComments|parser.SkipObjectResolution); err == nil {
			d.files[p.Filename] = d.collect(fset, f)
		}
	}
	m := d.files[p.Filename]
	if text, ok := m[docKey{kind, p.Line, p.Column}]; ok {
		return text
	}
	return m[docKey{kind, p.Line, 0}]
}

// collect maps the name of every type, constant and struct field declared
// in f (at any depth) to its documentation.
func (d *DocIndex) collect(fset *token.FileSet, f *ast.File) map[docKey]string {
	m := map[docKey]string{}
	put := func(kind docKind, names []*ast.Ident, docs ...*ast.CommentGroup) {
		text := ""
		for _, g := range docs {
			if text = model.DocText(g); text != "" {
				break
			}
		}
		if text == "" {
			return
		}
		for _, n := range names {
			p := fset.Position(n.Pos())
			m[docKey{kind, p.Line, p.Column}] = text
			if _, ok := m[docKey{kind, p.Line, 0}]; !ok {
				m[docKey{kind, p.Line, 0}] = text
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			for _, spec := range n.Specs {
				var parent *ast.CommentGroup
				if !n.Lparen.IsValid() {
					parent = n.Doc // "// Doc\ntype T ..." without parentheses
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					put(docType, []*ast.Ident{s.Name}, s.Doc, parent, s.Comment)
				case *ast.ValueSpec:
					if n.Tok == token.CONST {
						put(docConst, s.Names, s.Doc, parent, s.Comment)
					}
				}
			}
		case *ast.StructType:
			for _, field := range n.Fields.List {
				names := field.Names
				if len(names) == 0 { // embedded: the type name is the field name
					names = []*ast.Ident{embeddedIdent(field.Type)}
				}
				put(docField, names, field.Doc, field.Comment)
			}
		}
		return true
	})
	return m
}

// embeddedIdent is the identifier go/types positions an embedded field at.
func embeddedIdent(x ast.Expr) *ast.Ident {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.SelectorExpr:
			return e.Sel
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e
		default:
			return ast.NewIdent("")
		}
	}
}
