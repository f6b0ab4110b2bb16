package model

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// Options are the settings of BuildWith.
type Options struct {
	// ReadFile reads a source file of another package whose doc comments
	// and directives the model needs (os.ReadFile when nil), so that a
	// caller can record what the output depends on.
	ReadFile func(name string) ([]byte, error)
}

// builder holds what building the services of one run shares.
type builder struct {
	pkg      *packages.Package
	idx      *sourceIndex
	errs     *diag.Collector
	warnings *diag.Collector
	stated   *statedSchemas
	// declared caches the directives of each interface declaration met.
	declared map[*types.TypeName]*declDirectives
}

// declDirectives are the directives of one interface (or alias)
// declaration: its own, and those it gives methods by name.
type declDirectives struct {
	own     map[string]*Directive
	methods methodDirectives
	doc     string
}

// Build turns the named interfaces of pkg into the model. typeErrs
// are the package's type errors: reported only when a type the services use
// could not be resolved, as they then explain why.
func Build(pkg *packages.Package, names []string, typeErrs diag.List) ([]*Service, error) {
	services, _, err := BuildWith(pkg, names, typeErrs, Options{})
	return services, err
}

// BuildWith is Build, also returning warnings: problems that do not stop
// generation, such as a tool without a description.
func BuildWith(pkg *packages.Package, names []string, typeErrs diag.List, opts Options) ([]*Service, diag.List, error) {
	read := opts.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	b := &builder{
		pkg:      pkg,
		idx:      newSourceIndex(pkg.Fset, pkg.Syntax, read),
		errs:     &diag.Collector{Fset: pkg.Fset},
		warnings: &diag.Collector{Fset: pkg.Fset},
		declared: map[*types.TypeName]*declDirectives{},
	}
	b.stated = &statedSchemas{pkg: pkg, idx: b.idx, errs: b.errs}
	var services []*Service
	for _, name := range names {
		if s := b.buildService(name); s != nil {
			services = append(services, s)
		}
	}
	checkToolNames(services, b.errs)
	checkFeatureNames(services, b.errs)
	if b.errs.InvalidTypes {
		b.errs.List = append(b.errs.List, typeErrs...)
	}
	if err := b.errs.Err(); err != nil {
		return nil, nil, err
	}
	_ = b.warnings.Err() // sorts them
	return services, b.warnings.List, nil
}

// directivesOf returns the directives of the declaration obj, read once.
func (b *builder) directivesOf(obj *types.TypeName) *declDirectives {
	if d, ok := b.declared[obj]; ok {
		return d
	}
	dd := &declDirectives{}
	if decl := b.idx.typeDecl(obj); decl != nil {
		var methods []string
		if it, ok := obj.Type().Underlying().(*types.Interface); ok {
			for i := range it.NumMethods() {
				methods = append(methods, it.Method(i).Name())
			}
		}
		dd.own, dd.methods = parseDirectives(decl.doc, "interface", methods, b.errs)
		dd.doc = DocText(decl.doc)
	}
	b.declared[obj] = dd
	return dd
}

func (b *builder) buildService(name string) *Service {
	pkg, errs := b.pkg, b.errs
	tn := b.lookupInterface(name)
	if tn == nil {
		return nil
	}
	obj := tn
	named, _ := types.Unalias(tn.Type()).(*types.Named)
	iface, ok := tn.Type().Underlying().(*types.Interface)
	if !ok {
		errs.At(obj.Pos(), "%s is not an interface type (its underlying type is %s)", name, tn.Type().Underlying())
		return nil
	}
	if named != nil && named.TypeParams().Len() > 0 && named.TypeArgs().Len() == 0 {
		errs.At(obj.Pos(), "%s is a generic interface; generate for an instance of it, named by an alias or an interface that embeds it: type Item%s = %s[Item], or type Item%s interface{ %s[Item] }", name, tn.Name(), tn.Name(), tn.Name(), tn.Name())
		return nil
	}
	if !iface.IsMethodSet() {
		errs.At(obj.Pos(), "%s is a constraint interface (it has type terms), not a service", name)
		return nil
	}
	s := &Service{
		Name:    tn.Name(),
		RPCName: naming.LowerCamel(tn.Name()),
		Type:    tn.Type(),
		Pos:     pkg.Fset.Position(obj.Pos()),
	}
	// The directives along the chain, the outer over the inner; the doc is
	// the outermost one there is.
	chain := serviceChain(tn)
	dirs := map[string]*Directive{}
	for i := len(chain) - 1; i >= 0; i-- {
		dd := b.directivesOf(chain[i])
		dirs = mergeAll(dirs, dd.own)
		if s.Doc == "" || dd.doc != "" {
			s.Doc = dd.doc
		}
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
		m := b.buildMethod(s, tn, fn)
		if m == nil {
			continue
		}
		if prev, dup := seen[m.RPCName]; dup {
			errs.AtPosition(m.Pos, "method %s: JSON-RPC name %q is already used by %s", fn.Name(), m.RPCName, prev.Name)
			continue
		}
		seen[m.RPCName] = m
		s.Methods = append(s.Methods, m)
	}
	linkCompleters(s, errs)
	return s
}

// methodDirectives returns the directives of fn as a method of the service
// declared by svc: fn's own, then, key by key, those that the declarations
// on the way from svc to fn give it by name, the outer over the inner.
func (b *builder) methodDirectives(path []link, fn *types.Func, decl *methodDecl) map[string]*Directive {
	var doc *ast.CommentGroup
	if decl != nil {
		doc = decl.doc
	}
	dirs := ParseDirectives(doc, "method", b.errs)
	for i := len(path) - 1; i >= 0; i-- {
		dirs = mergeAll(dirs, b.directivesOf(path[i].obj).methods[fn.Name()])
	}
	return dirs
}

func (b *builder) buildMethod(s *Service, svc *types.TypeName, fn *types.Func) *Method {
	pkg, errs := b.pkg, b.errs
	before := len(errs.List)
	path := methodPath(svc.Type(), fn)
	decl := b.idx.method(fn)
	pos := fn.Pos()
	if decl != nil {
		pos = decl.name.Pos() // export data has no columns
	}
	if upos, ok := b.userPos(path, fn); ok {
		defer b.redirect(before, fn, upos)
		defer func() { b.redirectWarnings(fn, upos) }()
	}
	dirs := b.methodDirectives(path, fn, decl)
	m := &Method{
		Name:    fn.Name(),
		RPCName: naming.LowerCamel(fn.Name()),
		Pos:     pkg.Fset.Position(pos),
	}
	if decl != nil {
		m.Doc = DocText(decl.doc)
	}
	if s.RPCName != "" {
		m.RPCName = s.RPCName + "." + m.RPCName
	}
	if !fn.Exported() && fn.Pkg() != pkg.Types {
		errs.At(pos, "method %s is not exported, so no type outside package %s can implement %s", fn.Name(), fn.Pkg().Name(), s.Name)
		return nil
	}
	methodName(m, dirs["method"], errs)
	if f := dirs["method"].flag("notification"); f != nil && *f {
		m.Notification = true
	}
	m.Tool = buildTool(s, fn, dirs["tool"], errs)
	m.Schema = readSchemaOptions(dirs["schema"], s.Schema)
	check := typeChecker{target: pkg.Types}
	defer func() { errs.InvalidTypes = errs.InvalidTypes || check.invalid }()

	methodParams(pkg, m, fn, &check, errs)
	if v, _, ok := dirs["method"].value("description"); ok {
		m.Doc = strings.TrimSpace(v)
	}
	methodResult(pkg, m, fn, dirs, &check, errs)
	if m.Notification && m.Result != nil {
		errs.At(pos, "method %s is a notification, so it has no result; return only error", fn.Name())
	}
	buildFeature(m, dirs, errs, packageNameQualifier(pkg.Types))
	checkStream(m, dirs, errs)
	methodIdempotent(m, dirs["method"], errs)
	b.stated.attach(m)
	if len(errs.List) > before || check.invalid {
		return nil
	}
	b.warnUndocumented(m, pos)
	return m
}

// warnUndocumented warns of a method that becomes an MCP tool, resource or
// prompt without a description: a model chooses tools by what their
// descriptions say.
func (b *builder) warnUndocumented(m *Method, pos token.Pos) {
	if m.Doc != "" {
		return
	}
	what := ""
	switch {
	case m.Tool != nil:
		what = "its MCP tool " + m.Tool.Name
	case m.Resource != nil:
		what = "its MCP resource " + m.Resource.Name
	case m.Prompt != nil:
		what = "its MCP prompt " + m.Prompt.Name
	default:
		return
	}
	b.warnings.At(pos, "warning: method %s has no doc comment, so %s has no description, which a model needs to choose it; write one, or set it with //rpcgen:method %s description=\"...\" on an interface that embeds this one", m.Name, what, m.Name)
}

// redirectWarnings is redirect for the warnings about fn.
func (b *builder) redirectWarnings(fn *types.Func, pos token.Pos) {
	from := b.pkg.Fset.Position(fn.Pos()).Filename
	at := b.pkg.Fset.Position(pos)
	for _, w := range b.warnings.List {
		if w.Pos.Filename == from {
			w.Pos = at
		}
	}
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
			if m.Context == "" {
				m.Context = "_" // unnamed, yet there: the client must take it too
			}
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
	if skip := d.flag("skip"); skip != nil && *skip {
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
