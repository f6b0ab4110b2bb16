package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
)

// docIndex finds the doc comments of declarations by their position: struct
// fields, type names and constants, in the loaded package and in the packages
// it imports. The loaded package's own syntax is used as is; another
// package's file is parsed the first time one of its declarations is asked
// about, as go/packages gives dependencies as export data, which keeps
// positions (file and line, not column) but not comments. Standard library
// declarations get no doc: theirs describe a Go API, not the data.
type docIndex struct {
	fset   *token.FileSet
	files  map[string]map[docKey]string // file name -> declared name -> doc text
	parsed map[string]bool
	// log, when not nil, records what the generator read beyond the loaded
	// package: the generation cache checks it before reusing an output.
	log *inputLog
}

// inputs is the log of what the generator read, or nil.
func (d *docIndex) inputs() *inputLog {
	if d == nil {
		return nil
	}
	return d.log
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

func newDocIndex(fset *token.FileSet, syntax []*ast.File) *docIndex {
	d := &docIndex{fset: fset, files: map[string]map[docKey]string{}, parsed: map[string]bool{}}
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
func (d *docIndex) doc(kind docKind, pos token.Pos) string {
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
		d.inputs().readFile(p.Filename, src, err)
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
func (d *docIndex) collect(fset *token.FileSet, f *ast.File) map[docKey]string {
	m := map[docKey]string{}
	put := func(kind docKind, names []*ast.Ident, docs ...*ast.CommentGroup) {
		text := ""
		for _, g := range docs {
			if text = docText(g); text != "" {
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

// oneLine joins a doc comment's lines into one paragraph-preserving string
// for a JSON Schema description: single line breaks become spaces, blank
// lines stay as paragraph breaks.
func oneLine(doc string) string {
	paras := strings.Split(strings.TrimSpace(doc), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

// splitParamDocs takes the param descriptions out of a method's doc comment
// and returns the rest, which describes the method (and so the MCP tool).
//
// The convention, for methods whose params are not a single struct: a line
// "name: description", where name is one of the method's params (its Go
// name or JSON key), optionally after "- " or "* " and indentation, starts
// that param's description; it continues on the following lines up to a
// blank line or the next param line. For example:
//
//	// SearchNotes returns the notes whose text contains query.
//	//
//	// query: text to look for, case-insensitive.
//	// limit: the most notes to return; all of them when absent.
//
// A line whose word before the colon is not a param name is ordinary prose
// and stays in the doc ("Note: ..." is not an error).
func splitParamDocs(doc string, params []*Param) string {
	byName := map[string]*Param{}
	for _, p := range params {
		byName[p.Name] = p
		byName[p.JSONKey] = p
	}
	var kept []string
	var cur *Param
	for line := range strings.SplitSeq(doc, "\n") {
		if p, text, ok := paramLine(line, byName); ok {
			cur = p
			if p.Doc != "" {
				p.Doc += " "
			}
			p.Doc += text
			continue
		}
		if strings.TrimSpace(line) == "" {
			cur = nil
		} else if cur != nil {
			cur.Doc += " " + strings.TrimSpace(line)
			continue
		}
		kept = append(kept, line)
	}
	// Drop the blank lines the removed paragraphs leave behind.
	var out []string
	for i, line := range kept {
		if strings.TrimSpace(line) == "" && (len(out) == 0 || i == len(kept)-1 || strings.TrimSpace(out[len(out)-1]) == "") {
			continue
		}
		out = append(out, line)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// paramLine recognises "name: text" (after optional indentation and a "- "
// or "* " bullet) where name is a key of byName.
func paramLine(line string, byName map[string]*Param) (*Param, string, bool) {
	s := strings.TrimSpace(line)
	if rest, ok := strings.CutPrefix(s, "- "); ok {
		s = rest
	} else if rest, ok := strings.CutPrefix(s, "* "); ok {
		s = rest
	}
	name, text, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return nil, "", false
	}
	p := byName[name]
	if p == nil || (text != "" && text[0] != ' ' && text[0] != '\t') {
		return nil, "", false
	}
	return p, strings.TrimSpace(text), true
}
