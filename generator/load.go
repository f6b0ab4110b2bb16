package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// loadMode is the smallest go/packages mode that yields the package's types
// (dependencies come from export data) and its syntax, which holds the doc
// comments and directives.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes

// loadPackage loads the package in dir. The file at outPath, if it exists, is
// replaced by an empty file of the same package: it is the output being
// regenerated, and a stale copy that no longer compiles must not stop us.
//
// Type errors are returned apart rather than failing the load: code that
// uses the generated identifiers does not compile before they exist, and
// that must not stop them from being generated. The caller reports the type
// errors only when the interfaces' own types are affected.
func loadPackage(dir, outPath string, buildTags []string) (*packages.Package, ErrorList, error) {
	return loadPackageSources(dir, outPath, buildTags, nil, nil)
}

// loadPackageSources is loadPackage keeping, in srcs when not nil, the
// bytes of every file it parsed (the output file as the empty file it reads),
// and keeping what go list says of the package's files in lists when not
// nil (see listcache.go).
func loadPackageSources(dir, outPath string, buildTags []string, srcs *sourceSet, lists listStore) (*packages.Package, ErrorList, error) {
	_, pkgName, _ := readHead(token.NewFileSet(), outPath)
	parse := parseKeeping(outPath, pkgName, srcs)
	pkg, ok := loadSplit(dir, outPath, buildTags, lists, parse)
	if !ok {
		srcs.reset()
		var err error
		if pkg, err = loadWhole(dir, buildTags, parse); err != nil {
			return nil, nil, err
		}
	}
	// go list reports a compile failure once more as a list error; prefer
	// the type checker's positioned report when there is one.
	hasTypeErrors := slices.ContainsFunc(pkg.Errors, func(e packages.Error) bool { return e.Kind == packages.TypeError })
	// go list compiles the package for export data with the stale output
	// file as it is on disk; the type check of the syntax we parsed, with
	// that file emptied, is what counts, so the compiler's report is noise.
	compilerOutput := "# " + pkg.PkgPath + "\n"
	var fatal, typeErrs ErrorList
	for _, e := range pkg.Errors {
		pos := parsePosition(e.Pos)
		switch {
		case e.Kind == packages.TypeError:
			typeErrs = append(typeErrs, &Error{Pos: pos, Msg: e.Msg})
		case e.Kind == packages.ListError && (hasTypeErrors || strings.HasPrefix(e.Msg, compilerOutput)):
		default:
			fatal = append(fatal, &Error{Pos: pos, Msg: e.Msg})
		}
	}
	if len(fatal) > 0 || pkg.Types == nil {
		return nil, nil, append(fatal, typeErrs...)
	}
	return pkg, typeErrs, nil
}

// loadWhole loads the package in dir with packages.Load in loadMode,
// parsing its files with parse.
func loadWhole(dir string, buildTags []string, parse func(*token.FileSet, string, []byte) (*ast.File, error)) (*packages.Package, error) {
	// ParseFile, not an Overlay: with one, go/packages type-checks every
	// dependency from source instead of reading export data, several times
	// slower.
	cfg := &packages.Config{Mode: loadMode, Dir: dir, Tests: false, ParseFile: parse}
	if len(buildTags) > 0 {
		cfg.BuildFlags = []string{"-tags=" + strings.Join(buildTags, ",")}
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, fmt.Errorf("load package in %s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		// go/packages drops go list's reason here; point the user at it.
		return nil, fmt.Errorf("load package in %s: found %d packages, want 1 (run 'go list' there to see why)", dir, len(pkgs))
	}
	return pkgs[0], nil
}

// parseKeeping is a packages.Config.ParseFile that parses every file as
// go/packages does, except the output file, which it reads as an empty file
// of package pkgName when pkgName is not "" (the output exists), and that
// keeps each file's bytes in srcs when srcs is not nil.
func parseKeeping(outPath, pkgName string, srcs *sourceSet) func(*token.FileSet, string, []byte) (*ast.File, error) {
	out, _ := os.Stat(outPath)
	return func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		if pkgName != "" && isOutput(filename, outPath, out) {
			src = fmt.Appendf(nil, "package %s\n", pkgName)
		}
		srcs.put(filename, src)
		return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	}
}

// sourceSet holds the bytes of parsed files by name; go/packages parses in
// parallel.
type sourceSet struct {
	mu sync.Mutex
	m  map[string][]byte
}

// reset forgets every file, for a load that starts over.
func (s *sourceSet) reset() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m = nil
}

func (s *sourceSet) put(name string, src []byte) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[name] = src
}

// isOutput reports whether filename names the output file, also through a
// different spelling of its directory (a symbolic link).
func isOutput(filename, outPath string, out os.FileInfo) bool {
	if filepath.Clean(filename) == filepath.Clean(outPath) {
		return true
	}
	if out == nil || filepath.Base(filename) != filepath.Base(outPath) {
		return false
	}
	fi, err := os.Stat(filename)
	return err == nil && os.SameFile(fi, out)
}

// parsePosition parses the "file:line:col" form go/packages reports.
func parsePosition(s string) token.Position {
	var p token.Position
	rest := s
	nums := []*int{&p.Column, &p.Line}
	for _, n := range nums {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		v, err := strconv.Atoi(rest[i+1:])
		if err != nil {
			break
		}
		*n = v
		rest = rest[:i]
	}
	if p.Line == 0 && p.Column != 0 { // only "file:line"
		p.Line, p.Column = p.Column, 0
	}
	p.Filename = rest
	return p
}

// syntaxIndex finds the declarations behind go/types objects, for their doc
// comments and directives.
type syntaxIndex struct {
	typeDocs   map[token.Pos]*ast.CommentGroup // type name position -> doc
	methodDocs map[token.Pos]*ast.CommentGroup // interface method name position -> doc
}

func indexSyntax(files []*ast.File) *syntaxIndex {
	idx := &syntaxIndex{typeDocs: map[token.Pos]*ast.CommentGroup{}, methodDocs: map[token.Pos]*ast.CommentGroup{}}
	for _, f := range files {
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
				idx.typeDocs[ts.Name.Pos()] = doc
				it, ok := ts.Type.(*ast.InterfaceType)
				if !ok || it.Methods == nil {
					continue
				}
				for _, field := range it.Methods.List {
					for _, name := range field.Names {
						idx.methodDocs[name.Pos()] = field.Doc
					}
				}
			}
		}
	}
	return idx
}

// docText is the doc comment without directives, or "".
func docText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.TrimSpace(g.Text())
}

// buildServices turns the named interfaces of pkg into the model. typeErrs
// are the package's type errors: reported only when a type the services use
// could not be resolved, as they then explain why.
func buildServices(pkg *packages.Package, names []string, typeErrs ErrorList) ([]*Service, error) {
	errs := &errorCollector{fset: pkg.Fset}
	idx := indexSyntax(pkg.Syntax)
	var services []*Service
	for _, name := range names {
		if s := buildService(pkg, idx, name, errs); s != nil {
			services = append(services, s)
		}
	}
	checkToolNames(services, errs)
	checkFeatureNames(services, errs)
	if errs.invalidTypes {
		errs.list = append(errs.list, typeErrs...)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return services, nil
}

func buildService(pkg *packages.Package, idx *syntaxIndex, name string, errs *errorCollector) *Service {
	obj := pkg.Types.Scope().Lookup(name)
	if obj == nil {
		errs.list = append(errs.list, &Error{Msg: fmt.Sprintf("no type %s in package %s (%s)", name, pkg.Name, pkg.PkgPath)})
		return nil
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		errs.at(obj.Pos(), "%s is a %s, not an interface type", name, objectKind(obj))
		return nil
	}
	named, _ := types.Unalias(tn.Type()).(*types.Named)
	iface, ok := tn.Type().Underlying().(*types.Interface)
	if !ok {
		errs.at(obj.Pos(), "%s is not an interface type (its underlying type is %s)", name, tn.Type().Underlying())
		return nil
	}
	if named != nil && named.TypeParams().Len() > 0 {
		errs.at(obj.Pos(), "%s is a generic interface; instantiate it in a named interface type (type %sOfT interface{ %s[T] })", name, name, name)
		return nil
	}
	if !iface.IsMethodSet() {
		errs.at(obj.Pos(), "%s is a constraint interface (it has type terms), not a service", name)
		return nil
	}
	doc := idx.typeDocs[obj.Pos()]
	dirs := parseDirectives(doc, "interface", errs)
	s := &Service{
		Name:    name,
		RPCName: lowerCamel(name),
		Doc:     docText(doc),
		Pos:     pkg.Fset.Position(obj.Pos()),
	}
	if v, pos, ok := dirs["service"].value("name"); ok {
		if strings.ContainsFunc(v, isSpaceOrControl) || strings.HasPrefix(v, "rpc.") || v == "rpc" {
			errs.at(pos, "service name %q: must not contain spaces or control characters, nor start with the reserved prefix \"rpc\"", v)
		}
		s.RPCName = v
	}
	if v, pos, ok := dirs["service"].value("toolprefix"); ok {
		if v != "" && !validToolName(v) {
			errs.at(pos, "tool prefix %q: MCP tool names may only hold A-Z a-z 0-9 _ - .", v)
		}
		s.ToolPrefix = v
	}
	s.Schema = readSchemaOptions(dirs["schema"], schemaOptions{})
	if iface.NumMethods() == 0 {
		errs.at(obj.Pos(), "interface %s has no methods", name)
		return nil
	}

	funcs := make([]*types.Func, iface.NumMethods())
	for i := range funcs {
		funcs[i] = iface.Method(i)
	}
	// go/types orders methods by name; users expect the order they wrote.
	slices.SortStableFunc(funcs, func(a, b *types.Func) int {
		pa, pb := pkg.Fset.Position(a.Pos()), pkg.Fset.Position(b.Pos())
		if pa.Filename != pb.Filename {
			return strings.Compare(pa.Filename, pb.Filename)
		}
		return pa.Offset - pb.Offset
	})
	seen := map[string]*Method{}
	for _, fn := range funcs {
		m := buildMethod(pkg, idx, s, fn, errs)
		if m == nil {
			continue
		}
		if prev, dup := seen[m.RPCName]; dup {
			errs.at(fn.Pos(), "method %s: JSON-RPC name %q is already used by %s", fn.Name(), m.RPCName, prev.Name)
			continue
		}
		seen[m.RPCName] = m
		s.Methods = append(s.Methods, m)
	}
	linkCompleters(s, errs)
	return s
}

func buildMethod(pkg *packages.Package, idx *syntaxIndex, s *Service, fn *types.Func, errs *errorCollector) *Method {
	doc := idx.methodDocs[fn.Pos()]
	dirs := parseDirectives(doc, "method", errs)
	sig := fn.Signature()
	m := &Method{
		Name:    fn.Name(),
		RPCName: lowerCamel(fn.Name()),
		Doc:     docText(doc),
		Pos:     pkg.Fset.Position(fn.Pos()),
	}
	if s.RPCName != "" {
		m.RPCName = s.RPCName + "." + m.RPCName
	}
	if v, pos, ok := dirs["method"].value("name"); ok {
		switch {
		case v == "":
			errs.at(pos, "method %s: name must not be empty", fn.Name())
		case strings.ContainsFunc(v, isSpaceOrControl):
			errs.at(pos, "method %s: name %q must not contain spaces or control characters", fn.Name(), v)
		case strings.HasPrefix(v, "rpc."):
			errs.at(pos, "method %s: name %q uses the prefix \"rpc.\", which JSON-RPC 2.0 reserves", fn.Name(), v)
		}
		m.RPCName = v
	}
	if _, _, ok := dirs["method"].value("notification"); ok {
		m.Notification = true
	}
	m.Tool = buildTool(s, fn, dirs["tool"], errs)
	m.Schema = readSchemaOptions(dirs["schema"], s.Schema)
	before := len(errs.list)
	check := typeChecker{target: pkg.Types}
	defer func() { errs.invalidTypes = errs.invalidTypes || check.invalid }()

	params := sig.Params()
	for i := range params.Len() {
		v := params.At(i)
		if isContext(v.Type()) {
			if i != 0 {
				errs.at(v.Pos(), "method %s: context.Context must be the first parameter", fn.Name())
				continue
			}
			m.Context = v.Name()
			continue
		}
		if sig.Variadic() && i == params.Len()-1 {
			errs.at(v.Pos(), "method %s: variadic parameter %s is not supported; use a slice", fn.Name(), paramLabel(v))
			continue
		}
		if reason := check.check(v.Type()); reason != "" {
			errs.at(v.Pos(), "method %s: parameter %s: %s", fn.Name(), paramLabel(v), reason)
			continue
		}
		m.Params = append(m.Params, &Param{Name: v.Name(), JSONKey: v.Name(), Type: v.Type(), Pos: pkg.Fset.Position(v.Pos())})
	}
	if len(m.Params) == 1 && isStruct(m.Params[0].Type) {
		m.StructParams = true
	} else {
		for _, p := range m.Params {
			if p.Name == "" || p.Name == "_" {
				errs.at(fn.Pos(), "method %s: every parameter needs a name, which becomes its key in the params object (or take a single struct parameter)", fn.Name())
				break
			}
		}
		m.Doc = splitParamDocs(m.Doc, m.Params)
	}

	results := sig.Results()
	switch {
	case results.Len() == 0:
		errs.at(fn.Pos(), "method %s must return error or (T, error): a remote call can always fail", fn.Name())
	case !isError(results.At(results.Len() - 1).Type()):
		errs.at(fn.Pos(), "method %s: the last result must be error, got %s", fn.Name(), types.TypeString(results.At(results.Len()-1).Type(), types.RelativeTo(pkg.Types)))
	case results.Len() > 2:
		errs.at(fn.Pos(), "method %s returns %d results; want error or (T, error)", fn.Name(), results.Len())
	case results.Len() == 2:
		r := results.At(0).Type()
		if reason := check.check(r); reason != "" {
			errs.at(fn.Pos(), "method %s: result: %s", fn.Name(), reason)
		}
		m.Result = r
		if dirs["resource"] == nil && dirs["prompt"] == nil && dirs["complete"] == nil {
			// Tool content types are a tool's; features judge their results themselves.
			checkContent(m, errs, types.TypeString(r, packageNameQualifier(pkg.Types)))
		}
	}
	if m.Notification && m.Result != nil {
		errs.at(fn.Pos(), "method %s is a notification, so it has no result; return only error", fn.Name())
	}
	buildFeature(m, dirs, errs, packageNameQualifier(pkg.Types))
	if len(errs.list) > before || check.invalid {
		return nil
	}
	return m
}

// buildTool reads a method's //rpcgen:tool directive; it returns nil for skip.
func buildTool(s *Service, fn *types.Func, d *directive, errs *errorCollector) *Tool {
	method := fn.Name()
	pos := fn.Pos()
	if d != nil {
		pos = d.Pos
	}
	if _, _, skip := d.value("skip"); skip {
		if len(d.Args) > 1 {
			errs.at(pos, "method %s: //rpcgen:tool skip takes no other keys", method)
		}
		return nil
	}
	t := &Tool{
		Name:        s.ToolPrefix + snakeCase(method),
		ReadOnly:    d.flag("readonly"),
		Destructive: d.flag("destructive"),
		Idempotent:  d.flag("idempotent"),
		OpenWorld:   d.flag("openworld"),
	}
	if v, vpos, ok := d.value("name"); ok {
		if !validToolName(v) {
			errs.at(vpos, "method %s: tool name %q: MCP tool names are 1 to 128 of A-Z a-z 0-9 _ - .", method, v)
		}
		t.Name = v
	} else if !validToolName(t.Name) && (s.ToolPrefix == "" || validToolName(s.ToolPrefix)) {
		errs.at(pos, "method %s: tool name %q is not a valid MCP tool name; set one with //rpcgen:tool name=...", method, t.Name)
	}
	t.Title, _, _ = d.value("title")
	if t.ReadOnly != nil && *t.ReadOnly && t.Destructive != nil && *t.Destructive {
		errs.at(pos, "method %s: a tool cannot be both readonly and destructive", method)
	}
	return t
}

func paramLabel(v *types.Var) string {
	if v.Name() == "" {
		return types.TypeString(v.Type(), nil)
	}
	return v.Name()
}

func objectKind(obj types.Object) string {
	switch obj.(type) {
	case *types.Func:
		return "function"
	case *types.Var:
		return "variable"
	case *types.Const:
		return "constant"
	}
	return "declaration"
}

func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// isStruct reports whether t is a struct or a pointer to one.
func isStruct(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

// outputName is the default output file: the first interface's name in lower
// case, plus "_rpcgen.go".
func outputName(iface string) string {
	return strings.ToLower(iface) + "_rpcgen.go"
}

// checkToolNames reports tool names used twice: the tools of every service in
// one file are usually served together, so their names must not collide.
func checkToolNames(services []*Service, errs *errorCollector) {
	seen := map[string]*Method{}
	for _, s := range services {
		for _, m := range s.Methods {
			if m.Tool == nil {
				continue
			}
			if prev, dup := seen[m.Tool.Name]; dup {
				errs.list = append(errs.list, &Error{Pos: m.Pos, Msg: fmt.Sprintf("method %s: tool name %q is already used by %s", m.Name, m.Tool.Name, prev.Name)})
				continue
			}
			seen[m.Tool.Name] = m
		}
	}
}
