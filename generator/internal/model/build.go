package model

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// syntaxIndex finds the declarations behind go/types objects, for their doc
// comments and directives.
type syntaxIndex struct {
	typeDocs   map[token.Pos]*ast.CommentGroup // type name position -> doc
	methodDocs map[token.Pos]*ast.CommentGroup // interface method name position -> doc
	stated     *statedSchemas
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

// Build turns the named interfaces of pkg into the model. typeErrs
// are the package's type errors: reported only when a type the services use
// could not be resolved, as they then explain why.
func Build(pkg *packages.Package, names []string, typeErrs diag.List) ([]*Service, error) {
	errs := &diag.Collector{Fset: pkg.Fset}
	idx := indexSyntax(pkg.Syntax)
	idx.stated = &statedSchemas{pkg: pkg, idx: idx, errs: errs}
	var services []*Service
	for _, name := range names {
		if s := buildService(pkg, idx, name, errs); s != nil {
			services = append(services, s)
		}
	}
	checkToolNames(services, errs)
	checkFeatureNames(services, errs)
	if errs.InvalidTypes {
		errs.List = append(errs.List, typeErrs...)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return services, nil
}

func buildService(pkg *packages.Package, idx *syntaxIndex, name string, errs *diag.Collector) *Service {
	obj := pkg.Types.Scope().Lookup(name)
	if obj == nil {
		errs.List = append(errs.List, &diag.Error{Msg: fmt.Sprintf("no type %s in package %s (%s)", name, pkg.Name, pkg.PkgPath)})
		return nil
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		errs.At(obj.Pos(), "%s is a %s, not an interface type", name, objectKind(obj))
		return nil
	}
	named, _ := types.Unalias(tn.Type()).(*types.Named)
	iface, ok := tn.Type().Underlying().(*types.Interface)
	if !ok {
		errs.At(obj.Pos(), "%s is not an interface type (its underlying type is %s)", name, tn.Type().Underlying())
		return nil
	}
	if named != nil && named.TypeParams().Len() > 0 {
		errs.At(obj.Pos(), "%s is a generic interface; instantiate it in a named interface type (type %sOfT interface{ %s[T] })", name, name, name)
		return nil
	}
	if !iface.IsMethodSet() {
		errs.At(obj.Pos(), "%s is a constraint interface (it has type terms), not a service", name)
		return nil
	}
	doc := idx.typeDocs[obj.Pos()]
	dirs := ParseDirectives(doc, "interface", errs)
	s := &Service{
		Name:    name,
		RPCName: naming.LowerCamel(name),
		Doc:     DocText(doc),
		Pos:     pkg.Fset.Position(obj.Pos()),
	}
	if v, pos, ok := dirs["service"].value("name"); ok {
		if strings.ContainsFunc(v, isSpaceOrControl) || strings.HasPrefix(v, "rpc.") || v == "rpc" {
			errs.At(pos, "service name %q: must not contain spaces or control characters, nor start with the reserved prefix \"rpc\"", v)
		}
		s.RPCName = v
	}
	if v, pos, ok := dirs["service"].value("toolprefix"); ok {
		if v != "" && !naming.ValidToolName(v) {
			errs.At(pos, "tool prefix %q: MCP tool names may only hold A-Z a-z 0-9 _ - .", v)
		}
		s.ToolPrefix = v
	}
	s.Schema = readSchemaOptions(dirs["schema"], SchemaOptions{})
	if iface.NumMethods() == 0 {
		errs.At(obj.Pos(), "interface %s has no methods", name)
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
			errs.At(fn.Pos(), "method %s: JSON-RPC name %q is already used by %s", fn.Name(), m.RPCName, prev.Name)
			continue
		}
		seen[m.RPCName] = m
		s.Methods = append(s.Methods, m)
	}
	linkCompleters(s, errs)
	return s
}

func buildMethod(pkg *packages.Package, idx *syntaxIndex, s *Service, fn *types.Func, errs *diag.Collector) *Method {
	doc := idx.methodDocs[fn.Pos()]
	dirs := ParseDirectives(doc, "method", errs)
	m := &Method{
		Name:    fn.Name(),
		RPCName: naming.LowerCamel(fn.Name()),
		Doc:     DocText(doc),
		Pos:     pkg.Fset.Position(fn.Pos()),
	}
	if s.RPCName != "" {
		m.RPCName = s.RPCName + "." + m.RPCName
	}
	methodName(m, dirs["method"], errs)
	if _, _, ok := dirs["method"].value("notification"); ok {
		m.Notification = true
	}
	m.Tool = buildTool(s, fn, dirs["tool"], errs)
	m.Schema = readSchemaOptions(dirs["schema"], s.Schema)
	before := len(errs.List)
	check := typeChecker{target: pkg.Types}
	defer func() { errs.InvalidTypes = errs.InvalidTypes || check.invalid }()

	methodParams(pkg, m, fn, &check, errs)
	methodResult(pkg, m, fn, dirs, &check, errs)
	if m.Notification && m.Result != nil {
		errs.At(fn.Pos(), "method %s is a notification, so it has no result; return only error", fn.Name())
	}
	buildFeature(m, dirs, errs, packageNameQualifier(pkg.Types))
	checkStream(m, dirs, errs)
	methodIdempotent(m, dirs["method"], errs)
	idx.stated.attach(m)
	if len(errs.List) > before || check.invalid {
		return nil
	}
	return m
}

// methodName applies a //rpcgen:method name=..., which replaces the
// JSON-RPC name whole.
func methodName(m *Method, d *Directive, errs *diag.Collector) {
	v, pos, ok := d.value("name")
	if !ok {
		return
	}
	switch {
	case v == "":
		errs.At(pos, "method %s: name must not be empty", m.Name)
	case strings.ContainsFunc(v, isSpaceOrControl):
		errs.At(pos, "method %s: name %q must not contain spaces or control characters", m.Name, v)
	case strings.HasPrefix(v, "rpc."):
		errs.At(pos, "method %s: name %q uses the prefix \"rpc.\", which JSON-RPC 2.0 reserves", m.Name, v)
	}
	m.RPCName = v
}

// methodParams reads fn's parameters into m: the context, then the params.
func methodParams(pkg *packages.Package, m *Method, fn *types.Func, check *typeChecker, errs *diag.Collector) {
	sig := fn.Signature()
	params := sig.Params()
	for i := range params.Len() {
		v := params.At(i)
		if isContext(v.Type()) {
			if i != 0 {
				errs.At(v.Pos(), "method %s: context.Context must be the first parameter", fn.Name())
				continue
			}
			m.Context = v.Name()
			continue
		}
		if sig.Variadic() && i == params.Len()-1 {
			errs.At(v.Pos(), "method %s: variadic parameter %s is not supported; use a slice", fn.Name(), paramLabel(v))
			continue
		}
		if reason := check.check(v.Type()); reason != "" {
			errs.At(v.Pos(), "method %s: parameter %s: %s", fn.Name(), paramLabel(v), reason)
			continue
		}
		m.Params = append(m.Params, &Param{Name: v.Name(), JSONKey: v.Name(), Type: v.Type(), Pos: pkg.Fset.Position(v.Pos())})
	}
	if len(m.Params) == 1 && isStruct(m.Params[0].Type) {
		m.StructParams = true
		return
	}
	for _, p := range m.Params {
		if p.Name == "" || p.Name == "_" {
			errs.At(fn.Pos(), "method %s: every parameter needs a name, which becomes its key in the params object (or take a single struct parameter)", fn.Name())
			break
		}
	}
	m.Doc = SplitParamDocs(m.Doc, m.Params)
}

// methodResult reads fn's results into m: error, or (T, error).
func methodResult(pkg *packages.Package, m *Method, fn *types.Func, dirs map[string]*Directive, check *typeChecker, errs *diag.Collector) {
	results := fn.Signature().Results()
	switch {
	case results.Len() == 1 && isStream(results.At(0).Type()):
		item := streamItem(results.At(0).Type())
		if reason := check.check(item); reason != "" {
			errs.At(fn.Pos(), "method %s: stream item: %s", fn.Name(), reason)
		}
		m.Result, m.Stream = item, true
	case results.Len() == 0:
		errs.At(fn.Pos(), "method %s must return error or (T, error): a remote call can always fail", fn.Name())
	case results.Len() == 2 && isStream(results.At(0).Type()):
		errs.At(fn.Pos(), "method %s: a stream returns iter.Seq2[T, error] alone: its errors, a failure to start included, come as the sequence's last pair", fn.Name())
	case !isError(results.At(results.Len() - 1).Type()):
		errs.At(fn.Pos(), "method %s: the last result must be error, got %s (a stream returns iter.Seq2[T, error] alone)", fn.Name(), types.TypeString(results.At(results.Len()-1).Type(), types.RelativeTo(pkg.Types)))
	case results.Len() > 2:
		errs.At(fn.Pos(), "method %s returns %d results; want error or (T, error)", fn.Name(), results.Len())
	case results.Len() == 2:
		r := results.At(0).Type()
		if reason := check.check(r); reason != "" {
			errs.At(fn.Pos(), "method %s: result: %s", fn.Name(), reason)
		}
		m.Result = r
		if dirs["resource"] == nil && dirs["prompt"] == nil && dirs["complete"] == nil {
			// Tool content types are a tool's; features judge their results themselves.
			checkContent(m, errs, types.TypeString(r, packageNameQualifier(pkg.Types)))
		}
	}
}

// buildTool reads a method's //rpcgen:tool directive; it returns nil for skip.
func buildTool(s *Service, fn *types.Func, d *Directive, errs *diag.Collector) *Tool {
	method := fn.Name()
	pos := fn.Pos()
	if d != nil {
		pos = d.Pos
	}
	if _, _, skip := d.value("skip"); skip {
		if len(d.Args) > 1 {
			errs.At(pos, "method %s: //rpcgen:tool skip takes no other keys", method)
		}
		return nil
	}
	t := &Tool{
		Name:        s.ToolPrefix + naming.SnakeCase(method),
		ReadOnly:    d.flag("readonly"),
		Destructive: d.flag("destructive"),
		Idempotent:  d.flag("idempotent"),
		OpenWorld:   d.flag("openworld"),
	}
	if v, vpos, ok := d.value("name"); ok {
		if !naming.ValidToolName(v) {
			errs.At(vpos, "method %s: tool name %q: MCP tool names are 1 to 128 of A-Z a-z 0-9 _ - .", method, v)
		}
		t.Name = v
	} else if !naming.ValidToolName(t.Name) && (s.ToolPrefix == "" || naming.ValidToolName(s.ToolPrefix)) {
		errs.At(pos, "method %s: tool name %q is not a valid MCP tool name; set one with //rpcgen:tool name=...", method, t.Name)
	}
	t.Title, _, _ = d.value("title")
	if t.ReadOnly != nil && *t.ReadOnly && t.Destructive != nil && *t.Destructive {
		errs.At(pos, "method %s: a tool cannot be both readonly and destructive", method)
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

// checkToolNames reports tool names used twice: the tools of every service in
// one file are usually served together, so their names must not collide.
func checkToolNames(services []*Service, errs *diag.Collector) {
	seen := map[string]*Method{}
	for _, s := range services {
		for _, m := range s.Methods {
			if m.Tool == nil {
				continue
			}
			if prev, dup := seen[m.Tool.Name]; dup {
				errs.List = append(errs.List, &diag.Error{Pos: m.Pos, Msg: fmt.Sprintf("method %s: tool name %q is already used by %s", m.Name, m.Tool.Name, prev.Name)})
				continue
			}
			seen[m.Tool.Name] = m
		}
	}
}
