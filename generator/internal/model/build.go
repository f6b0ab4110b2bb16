package model

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
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
	// errorDecls caches the declared errors by variable name (nil for a
	// name that declares none).
	errorDecls map[string]*DeclaredError
	// typeSchemas are the stated schemas of the types that write their own
	// JSON the services use (Service.TypeSchemas); warned holds the
	// warnings the type checks gave, once each.
	typeSchemas map[string]*StatedSchema
	warned      map[string]bool
	// read reads a file the output depends on and records it; dir is the
	// package's directory.
	read func(name string) ([]byte, error)
	dir  string
}

// typeChecker returns a checker of the types of one method or declaration.
func (b *builder) typeChecker() *typeChecker {
	return &typeChecker{target: b.pkg.Types, encoded: b.stated.encoded, warn: func(pos token.Pos, msg string) {
		if b.warned[msg] {
			return
		}
		if b.warned == nil {
			b.warned = map[string]bool{}
		}
		b.warned[msg] = true
		b.warnings.At(pos, "%s", msg)
	}}
}

// keepEncoded keeps the stated schemas check met.
func (b *builder) keepEncoded(check *typeChecker) {
	for k, st := range check.found {
		if b.typeSchemas == nil {
			b.typeSchemas = map[string]*StatedSchema{}
		}
		b.typeSchemas[k] = st
	}
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
// generation, such as a tool without a description. When it reports
// problems (a diag.List) it still returns the services as far as they were
// built without one, so that a caller can find the problems of the later
// stages too; when a type could not be resolved, it returns none.
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
		read:     read,
	}
	if len(pkg.GoFiles) > 0 {
		b.dir = filepath.Dir(pkg.GoFiles[0])
	}
	b.stated = &statedSchemas{pkg: pkg, idx: b.idx, errs: b.errs}
	var services []*Service
	for _, name := range names {
		if s := b.buildService(name); s != nil {
			services = append(services, s)
		}
	}
	for _, s := range services {
		s.TypeSchemas = b.typeSchemas
	}
	checkToolNames(services, b.errs)
	checkFeatureNames(services, b.errs)
	if b.errs.InvalidTypes {
		b.errs.List = append(b.errs.List, typeErrs...)
		return nil, nil, b.errs.Err()
	}
	_ = b.warnings.Err() // sorts them
	// With problems, the services hold what was built without one (a
	// method with a problem is left out), so that the later stages can
	// report theirs in the same run.
	return services, b.warnings.List, b.errs.Err()
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
	s.Extension = buildExtension(s, dirs["extension"], dirs["service"], errs)
	s.Skills = b.buildSkills(dirs["skills"])
	s.Scopes = parseScopes(dirs["service"], nil, errs)
	s.Schema = readSchemaOptions(dirs["schema"], SchemaOptions{})
	s.Errors = b.declaredErrors(dirs["service"])
	s.IgnoreBreaking = breakingIgnores(dirs["breaking"], errs)
	s.Icons = b.icons(dirs["icon"], "interface "+s.Name)
	s.Packages, s.Env = serverInfo(dirs["package"], dirs["env"], errs)
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
	checkTaskHandles(s, errs)
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
		m.RPCName = s.RPCName + s.separator() + m.RPCName
	}
	if !fn.Exported() && fn.Pkg() != pkg.Types {
		errs.At(pos, "method %s is not exported, so no type outside package %s can implement %s", fn.Name(), fn.Pkg().Name(), s.Name)
		return nil
	}
	methodName(m, dirs["method"], errs)
	m.IgnoreBreaking = breakingIgnores(dirs["breaking"], errs)
	if f := dirs["method"].flag("notification"); f != nil && *f {
		m.Notification = true
	}
	m.Tool = buildTool(s, fn, dirs["tool"], errs)
	m.Schema = readSchemaOptions(dirs["schema"], s.Schema)
	check := b.typeChecker()
	defer func() { errs.InvalidTypes = errs.InvalidTypes || check.invalid }()
	defer b.keepEncoded(check)

	methodParams(pkg, m, fn, check, errs)
	methodResult(pkg, m, fn, dirs, check, errs)
	m.Doc, m.ResultDoc = splitDocs(m.Doc, m)
	if v, _, ok := dirs["method"].value("description"); ok {
		m.Doc = strings.TrimSpace(v)
	}
	if m.Notification && m.Result != nil {
		errs.At(pos, "method %s is a notification, so it has no result; return only error", fn.Name())
	}
	if s.Extension != nil {
		checkExtensionMethod(m, dirs, errs)
	} else {
		buildFeature(m, dirs, errs, packageNameQualifier(pkg.Types))
	}
	b.methodDescriptors(m, dirs)
	if m.Tool != nil && s.Extension == nil {
		m.Tool.App = buildApp(m, dirs["app"], b.dir, b.read, errs)
		if m.Tool.App != nil && len(m.Tool.Meta) > 0 {
			var keys map[string]json.RawMessage
			if json.Unmarshal(m.Tool.Meta, &keys) == nil {
				for _, k := range []string{"ui", "ui/resourceUri"} {
					if _, taken := keys[k]; taken {
						errs.At(dirs["app"].Pos, "method %s: meta= sets %q, which //rpcgen:app writes: leave it to the view", m.Name, k)
					}
				}
			}
		}
	} else if d := dirs["app"]; d != nil {
		errs.At(d.Pos, "method %s: //rpcgen:app gives a tool a view, and %s is not a tool", m.Name, m.Name)
	}
	checkStream(m, dirs, errs)
	methodIdempotent(m, dirs["method"], errs)
	methodErrors(m, s.Errors, b.declaredErrors(dirs["method"]), pos, errs)
	methodExamples(m, dirs["example"], pkg.Fset, errs)
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
