package model

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

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
	// The display name: title=..., or the method's name in words
	// ("AddNote" -> "Add note"); title="" gives none.
	t.Title = naming.Title(method)
	if v, _, ok := d.value("title"); ok {
		t.Title = v
	}
	t.Scopes = parseScopes(d, s.Scopes, errs)
	if v, vpos, ok := d.value("task"); ok {
		if v != "optional" && v != "required" {
			errs.At(vpos, "method %s: //rpcgen:tool task=%s: want task=optional or task=required", method, v)
		}
		t.Task = v
	}
	if b := d.flag("taskbegins"); b != nil && *b {
		if t.Task == "" {
			errs.At(pos, "method %s: //rpcgen:tool taskbegins needs task=optional or task=required", method)
		}
		t.TaskBegins = true
	}
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

// isStruct reports whether t is a struct or a pointer to one that
// encoding/json writes as an object of its fields: not one that encodes
// itself (time.Time, netip.Addr, big.Int), whose JSON is a string or a
// number.
func isStruct(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	_, ok := t.Underlying().(*types.Struct)
	return ok && !hasJSONMethods(t)
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }
