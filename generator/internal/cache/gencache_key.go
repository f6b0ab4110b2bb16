package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"hash"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/load"
)

// Settings is what the output depends on besides the package: the
// Config, with its paths as Generate resolved them.
type Settings struct {
	Dir, Out              string
	Interfaces, BuildTags []string
	// Options are the other settings that change the output, in an order
	// that does not change.
	Options []string
}

// Key is the generation cache's key for set on pkg, with cacheDir the
// cache directory (see gencache.go); ok is false when there is none to be
// had (a file whose bytes were not kept, no executable to digest), and then
// the cache is not used.
func Key(cacheDir string, set Settings, pkg *packages.Package, srcs *load.Sources) (key string, ok bool) {
	exe, err := executableDigest(cacheDir)
	if err != nil {
		return "", false
	}
	dir, out := set.Dir, set.Out
	w := newKeyWriter()
	w.str(genCacheVersion)
	w.str(exe)
	w.str(runtime.Version())
	w.str(dir)
	w.str(out)
	w.strs(set.Interfaces)
	w.strs(set.BuildTags)
	w.strs(set.Options)
	w.strs([]string{pkg.PkgPath, pkg.Name, pkg.Types.GoVersion()})

	// The files, without what decides nothing.
	// The output, if it exists, was read as an empty file: it decides
	// nothing, and the run that creates it shares the key of the runs after.
	refs := referencedNames(pkg.Syntax)
	outInfo, _ := os.Stat(out)
	var files []*ast.File
	var tfs []*token.File
	for _, f := range pkg.Syntax {
		tf := pkg.Fset.File(f.Pos())
		if tf == nil {
			return "", false
		}
		if !load.IsOutput(tf.Name(), out, outInfo) {
			files, tfs = append(files, f), append(tfs, tf)
		}
	}
	w.num(len(files))
	for i, f := range files {
		tf := tfs[i]
		srcs.Mu.Lock()
		src, kept := srcs.M[tf.Name()]
		srcs.Mu.Unlock()
		if !kept || len(src) != tf.Size() {
			return "", false
		}
		rel, err := filepath.Rel(dir, tf.Name())
		if err != nil {
			rel = tf.Name()
		}
		w.str(rel)
		w.tokens(src, cutRanges(f, tf, refs))
		w.num(-1) // no token starts with a negative distance
	}

	// The types as loaded: the package's own objects lead to every type of
	// a dependency the generator can meet. Functions are in the files where
	// they matter; a method is described with its type.
	d := &typeDigest{w: w, fset: pkg.Fset, self: pkg.Types, seen: map[*types.TypeName]bool{}, tparams: map[*types.TypeParam]bool{}}
	scope := pkg.Types.Scope()
	var roots []types.Object
	for _, name := range scope.Names() {
		if _, isFunc := scope.Lookup(name).(*types.Func); !isFunc {
			roots = append(roots, scope.Lookup(name))
		}
	}
	w.num(len(roots))
	for _, obj := range roots {
		name := obj.Name()
		switch obj := obj.(type) {
		case *types.Const:
			w.str("const " + name)
			d.typ(obj.Type())
			w.str(obj.Val().ExactString())
		case *types.Var:
			w.str("var " + name)
			d.typ(obj.Type())
		case *types.TypeName:
			w.str("type " + name)
			d.typ(obj.Type())
		}
	}
	// An interface of another package the package need not mention: its
	// type, as loaded, is a root too (its docs and directives are in the
	// files the model logged).
	for _, name := range set.Interfaces {
		q, typeName := load.SplitQualified(name)
		if q == "" {
			continue
		}
		w.str("foreign " + name)
		if p, err := load.Foreign(pkg, q); err == nil {
			if obj := p.Scope().Lookup(typeName); obj != nil {
				w.str(obj.Pkg().Path())
				d.typ(obj.Type())
			}
		}
	}
	d.drain()
	return w.sum(), true
}

// keyWriter digests the key's bytes, every string length-prefixed so that
// no two different sequences write the same bytes. It hashes in pieces: a
// big package's key is megabytes.
type keyWriter struct {
	h   hash.Hash
	buf []byte
}

func newKeyWriter() *keyWriter {
	return &keyWriter{h: sha256.New(), buf: make([]byte, 0, 64<<10)}
}

func (w *keyWriter) num(n int) {
	w.buf = binary.AppendVarint(w.buf, int64(n))
	w.flush()
}

func (w *keyWriter) str(s string) {
	w.buf = binary.AppendVarint(w.buf, int64(len(s)))
	w.buf = append(w.buf, s...)
	w.flush()
}

func (w *keyWriter) flush() {
	if len(w.buf) >= 60<<10 {
		w.h.Write(w.buf)
		w.buf = w.buf[:0]
	}
}

func (w *keyWriter) sum() string {
	w.h.Write(w.buf)
	w.buf = w.buf[:0]
	return hex.EncodeToString(w.h.Sum(nil))
}

func (w *keyWriter) strs(ss []string) {
	w.num(len(ss))
	for _, s := range ss {
		w.str(s)
	}
}

// referencedNames holds every identifier of the files outside function
// bodies and outside the names of function declarations: a function whose
// name is not among them is used, if at all, only by function bodies.
func referencedNames(files []*ast.File) map[string]bool {
	refs := map[string]bool{}
	visit := func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			refs[id.Name] = true
		}
		return true
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv != nil {
					ast.Inspect(decl.Recv, visit)
				}
				ast.Inspect(decl.Type, visit)
			default:
				ast.Inspect(decl, visit)
			}
		}
	}
	return refs
}

// span is a range of byte offsets [from, to) of a file left out of the key;
// trailing says to also leave out comments that begin on the line to ends.
type span struct {
	from, to int
	trailing bool
}

// cutRanges are the parts of f that decide nothing the generator reads:
// the inside of every function body, and whole functions (with their doc
// comments) that have no receiver and are not exported nor referenced
// outside function bodies. Such a function adds no method and names no
// type, and the package-level names emission has to avoid are logged apart
// (inputLog), so removing it, adding it or changing it leaves the output as
// it is. Types never depend on function bodies, and a package with type
// errors never uses the cache.
func cutRanges(f *ast.File, tf *token.File, refs map[string]bool) []span {
	var cuts []span
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv == nil && (name == "init" || name == "_" || !ast.IsExported(name) && !refs[name]) {
			from := fd.Pos()
			if fd.Doc != nil {
				from = fd.Doc.Pos()
			}
			cuts = append(cuts, span{tf.Offset(from), tf.Offset(fd.End()), true})
			continue
		}
		if fd.Body != nil {
			cuts = append(cuts, span{tf.Offset(fd.Body.Lbrace) + 1, tf.Offset(fd.Body.Rbrace), false})
		}
	}
	return cuts
}

// tokens writes src's tokens outside cuts: each with its text, after how
// far it is from the previous token written, in lines (0, 1, or 2 for
// more), which is what decides doc comments and semicolons; columns and
// the number of empty lines decide nothing. Semicolons the scanner inserts
// at line ends are left out, the line distance holding them.
func (w *keyWriter) tokens(src []byte, cuts []span) {
	fset := token.NewFileSet()
	tf := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(tf, src, nil, scanner.ScanComments)
	prevLine := 1
	cut := 0
	skipLine := -1     // a line whose comments belong to a cut function
	bodyClose := false // the next token closes a function body
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := tf.Offset(pos)
		for cut < len(cuts) && off >= cuts[cut].to {
			if cuts[cut].trailing {
				skipLine = tf.Line(tf.Pos(cuts[cut].to - 1))
			} else {
				bodyClose = true
			}
			cut++
		}
		if cut < len(cuts) && off >= cuts[cut].from || tok == token.SEMICOLON && lit == "\n" {
			continue
		}
		line := tf.Line(pos)
		if tok == token.COMMENT && line == skipLine {
			continue
		}
		skipLine = -1
		dist := min(line-prevLine, 2)
		if bodyClose {
			// A body's lines are left out with it.
			dist, bodyClose = 0, false
		}
		w.num(dist)
		w.num(int(tok))
		if lit == "" {
			lit = tok.String()
		}
		w.str(lit)
		prevLine = line
		if tok == token.COMMENT || tok == token.STRING {
			for _, c := range lit {
				if c == '\n' {
					prevLine++
				}
			}
		}
	}
}
