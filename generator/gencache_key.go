package generator

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
	"strconv"

	"golang.org/x/tools/go/packages"
)

// genKey is the generation cache's key for cfg on pkg (see gencache.go);
// ok is false when there is none to be had (a file whose bytes were not
// kept, no executable to digest), and then the cache is not used.
func genKey(cfg Config, dir, out string, pkg *packages.Package, srcs *sourceSet) (key string, ok bool) {
	exe, err := executableDigest(cfg.CacheDir)
	if err != nil {
		return "", false
	}
	w := newKeyWriter()
	w.str(genCacheVersion)
	w.str(exe)
	w.str(runtime.Version())
	// The Config, with its paths as Generate resolved them.
	w.str(dir)
	w.str(out)
	w.strs(cfg.Interfaces)
	w.strs(cfg.BuildTags)
	w.strs([]string{cfg.SchemaDir, cfg.OpenRPC, cfg.TypeScript, cfg.Docs, cfg.APIVersion, strconv.FormatBool(cfg.NoDiscover)})
	w.strs([]string{pkg.PkgPath, pkg.Name, pkg.Types.GoVersion()})

	// The files, without what decides nothing.
	// The output, if it exists, was read as an empty file: it decides
	// nothing, and the run that creates it shares the key of the runs after.
	refs := referencedNames(pkg.Syntax)
	outInfo, _ := os.Stat(out)
	for _, f := range pkg.Syntax {
		tf := pkg.Fset.File(f.Pos())
		if tf == nil {
			return "", false
		}
		if isOutput(tf.Name(), out, outInfo) {
			continue
		}
		srcs.mu.Lock()
		src, kept := srcs.m[tf.Name()]
		srcs.mu.Unlock()
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
	// a dependency the generator can meet.
	d := &typeDigest{w: w, fset: pkg.Fset, self: pkg.Types, seen: map[*types.TypeName]bool{}, tparams: map[*types.TypeParam]bool{}}
	scope := pkg.Types.Scope()
	for _, name := range scope.Names() {
		switch obj := scope.Lookup(name).(type) {
		case *types.Func:
			// Functions are in the files where they matter; a method is
			// described with its type.
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
