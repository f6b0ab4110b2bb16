package model

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// RuntimePath is the import path of the JSON-RPC runtime generated code
// calls, which also declares the application errors (runtime.ErrorDef).
const RuntimePath = "github.com/rpcgen/rpcgen/runtime"

// DeclaredError is an application error a service declares: an exported
// variable of the generated package, initialized with
// runtime.DefineError[D](code, message) or runtime.NewError(code, message)
// from constants, and named by //rpcgen:service errors=... or
// //rpcgen:method errors=... The implementation returns the variable (or
// its With(data)), so the code rpcgen documents is the code it sends.
type DeclaredError struct {
	GoName  string // the variable, e.g. "ErrDivisionByZero"
	Name    string // GoName without its "Err" prefix, e.g. "DivisionByZero"
	Code    int64
	Message string
	Doc     string     // the variable's doc comment
	Data    types.Type // the type of its data (D), nil for none
	Pos     token.Position
}

// declaredErrors resolves the names of d's errors key (a comma-separated
// list of variables) to the errors they declare, reporting names that
// declare none.
func (b *builder) declaredErrors(d *Directive) []*DeclaredError {
	v, pos, ok := d.value("errors")
	if !ok {
		return nil
	}
	var out []*DeclaredError
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			b.errs.At(pos, "errors=%q: an empty name; list the variables that declare the errors, comma-separated", v)
			continue
		}
		if e := b.declaredError(name, pos); e != nil && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// declaredError resolves one name, once per run: the errors of a name are
// reported once, however many methods name it.
func (b *builder) declaredError(name string, pos token.Pos) *DeclaredError {
	if e, ok := b.errorDecls[name]; ok {
		return e
	}
	e := b.resolveError(name, pos)
	if b.errorDecls == nil {
		b.errorDecls = map[string]*DeclaredError{}
	}
	b.errorDecls[name] = e
	return e
}

const errorDeclHelp = "declare it as var %s = runtime.DefineError[Data](code, message), or runtime.NewError(code, message) for one without data, with constant arguments"

func (b *builder) resolveError(name string, pos token.Pos) *DeclaredError {
	obj, _ := b.pkg.Types.Scope().Lookup(name).(*types.Var)
	if obj == nil || !obj.Exported() {
		b.errs.At(pos, "errors: %s is not an exported variable of package %s; "+errorDeclHelp, name, b.pkg.Name, name)
		return nil
	}
	e := &DeclaredError{GoName: name, Name: strings.TrimPrefix(name, "Err"), Pos: b.pkg.Fset.Position(obj.Pos())}
	if e.Name == "" || e.Name[0] < 'A' || e.Name[0] > 'Z' {
		e.Name = name
	}
	ptr, _ := obj.Type().(*types.Pointer)
	var named *types.Named
	if ptr != nil {
		named, _ = types.Unalias(ptr.Elem()).(*types.Named)
	}
	switch {
	case named != nil && PkgPath(named) == RuntimePath && named.Obj().Name() == "ErrorDef" && named.TypeArgs().Len() == 1:
		e.Data = named.TypeArgs().At(0)
	case named != nil && PkgPath(named) == RuntimePath && named.Obj().Name() == "Error":
	default:
		b.errs.At(obj.Pos(), "errors: %s has type %s, not *runtime.ErrorDef[D] or *runtime.Error; "+errorDeclHelp, name, types.TypeString(obj.Type(), types.RelativeTo(b.pkg.Types)), name)
		return nil
	}
	if e.Data != nil {
		check := b.typeChecker()
		defer b.keepEncoded(check)
		if reason := check.check(e.Data); reason != "" {
			b.errs.At(obj.Pos(), "errors: %s: data type %s: %s", name, types.TypeString(e.Data, types.RelativeTo(b.pkg.Types)), reason)
			return nil
		}
	}
	spec, value := b.varSpec(obj)
	call, _ := ast.Unparen(value).(*ast.CallExpr)
	// The load keeps no types.Info: check the initializer again, alone, in
	// the scope of its file.
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Instances: map[*ast.Ident]types.Instance{}}
	var callee *types.Func
	if call != nil && types.CheckExpr(b.pkg.Fset, b.pkg.Types, call.Pos(), call, info) == nil {
		callee = typeutil.StaticCallee(info, call)
	}
	if callee == nil || callee.Pkg() == nil || callee.Pkg().Path() != RuntimePath ||
		(callee.Name() != "DefineError" && callee.Name() != "NewError") || len(call.Args) != 2 {
		b.errs.At(obj.Pos(), "errors: %s must be initialized by a call of runtime.DefineError or runtime.NewError, which rpcgen reads its code and message from; "+errorDeclHelp, name, name)
		return nil
	}
	code, message := info.Types[call.Args[0]].Value, info.Types[call.Args[1]].Value
	if code == nil || code.Kind() != constant.Int || message == nil || message.Kind() != constant.String {
		b.errs.At(call.Pos(), "errors: %s: the code and the message must be constants, which rpcgen reads at generate time", name)
		return nil
	}
	e.Code, _ = constant.Int64Val(code)
	e.Message = constant.StringVal(message)
	if e.Code >= -32768 && e.Code <= -32100 {
		b.errs.At(call.Args[0].Pos(), "errors: %s: code %d is in -32768..-32100, which JSON-RPC 2.0 reserves for its own errors; use a code outside -32768..-32000, or one of -32099..-32000 (server errors)", name, e.Code)
		return nil
	}
	if spec != nil {
		e.Doc = DocText(spec)
	}
	return e
}

// varSpec finds the declaration of v in the package's syntax: its doc
// comment (the spec's, else its group's when the group declares it alone)
// and the expression it is initialized with.
func (b *builder) varSpec(v *types.Var) (*ast.CommentGroup, ast.Expr) {
	for _, f := range b.pkg.Syntax {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if id.Pos() != v.Pos() {
						continue
					}
					doc := vs.Doc
					if doc == nil && len(gd.Specs) == 1 {
						doc = gd.Doc
					}
					if len(vs.Values) != len(vs.Names) {
						return doc, nil
					}
					return doc, vs.Values[i]
				}
			}
		}
	}
	return nil, nil
}

// methodErrors sets m.Errors: the service's declared errors and the
// method's own, each once, checked for codes given twice.
func methodErrors(m *Method, service, own []*DeclaredError, pos token.Pos, errs *diag.Collector) {
	if m.Notification {
		// The service's errors are its answered methods'.
		if len(own) > 0 {
			errs.At(pos, "method %s is a notification, which is never answered: it cannot fail with a declared error", m.Name)
		}
		return
	}
	all := slices.Clone(service)
	for _, e := range own {
		if !slices.Contains(all, e) {
			all = append(all, e)
		}
	}
	if len(all) == 0 {
		return
	}
	for i, e := range all {
		for _, f := range all[:i] {
			if f.Code == e.Code {
				errs.At(pos, "method %s: errors %s and %s have the same code %d, which a client cannot tell apart", m.Name, f.GoName, e.GoName, e.Code)
			}
		}
	}
	m.Errors = all
}
