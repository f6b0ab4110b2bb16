package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// client writes the typed client: a struct implementing the interface by
// calling through a runtime.Caller.
func (g *emitter) client(s *Service, names *serviceNames) {
	f := g.file
	f.Line()
	f.Commentf("%s calls a remote %s over JSON-RPC 2.0. It implements", names.client, s.Name)
	f.Commentf("%s, so a caller can swap a local implementation for a remote one", s.Name)
	f.Comment("without other changes.")
	f.Type().Id(names.client).Struct(jen.Id(names.field).Qual(runtimePath, "Caller"))

	f.Line()
	f.Var().Id("_").Id(s.Name).Op("=").Parens(jen.Op("*").Id(names.client)).Parens(jen.Nil())

	f.Line()
	f.Commentf("New%s returns a %s that calls through c: a *runtime.Conn", names.client, s.Name)
	f.Comment("(stdio, subprocess, in-memory pipe) or a *runtime.HTTPClient.")
	f.Func().Id("New" + names.client).Params(jen.Id("c").Qual(runtimePath, "Caller")).Op("*").Id(names.client).Block(
		jen.Return(jen.Op("&").Id(names.client).Values(jen.Id(names.field).Op(":").Id("c"))),
	)

	for _, m := range s.Methods {
		g.clientMethod(s, m, names)
	}
}

func (g *emitter) clientMethod(s *Service, m *Method, names *serviceNames) {
	f := g.file
	scope := newScope(g.reserved)
	ctx := jen.Qual("context", "Background").Call()
	var params []jen.Code
	if m.Context != "" {
		name := scope.declare(m.Context, "ctx")
		params = append(params, jen.Id(name).Qual("context", "Context"))
		ctx = jen.Id(name)
	}
	argNames := make([]string, len(m.Params))
	for i, p := range m.Params {
		argNames[i] = scope.declare(p.Name, fmt.Sprintf("p%d", i))
		params = append(params, jen.Id(argNames[i]).Add(g.typeExpr(p.Type)))
	}

	var wire jen.Code // the params value handed to the runtime
	switch {
	case len(m.Params) == 0:
		wire = jen.Nil()
	case m.StructParams:
		wire = jen.Id(argNames[0])
	default:
		fields := paramFields(m)
		wire = jen.Op("&").Id(names.params(m)).ValuesFunc(func(v *jen.Group) {
			for i := range m.Params {
				v.Id(fields[i]).Op(":").Id(argNames[i])
			}
		})
	}
	caller := jen.Id("c").Dot(names.field)
	constant := jen.Id(names.constant(m))

	var results jen.Code = jen.Error()
	var body []jen.Code
	switch {
	case m.Notification:
		body = append(body, jen.Return(caller.Dot("Notify").Call(ctx, constant, wire)))
	case m.Result == nil:
		body = append(body, jen.Return(caller.Dot("Call").Call(ctx, constant, wire, jen.Nil())))
	default:
		results = jen.Parens(jen.List(g.typeExpr(m.Result), jen.Error()))
		body = append(body,
			jen.Var().Id("result").Add(g.typeExpr(m.Result)),
			jen.If(
				jen.Err().Op(":=").Add(caller.Dot("Call").Call(ctx, constant, wire, jen.Op("&").Id("result"))),
				jen.Err().Op("!=").Nil(),
			).Block(jen.Return(g.zeroValue(m.Result), jen.Err())),
			jen.Return(jen.Id("result"), jen.Nil()),
		)
	}

	what := fmt.Sprintf("calls the remote method %q.", m.RPCName)
	if m.Notification {
		what = fmt.Sprintf("sends the notification %q and returns once it is\nwritten: the server never answers.", m.RPCName)
	}
	f.Line()
	comment(f, methodDoc(m, what))
	f.Func().Params(jen.Id("c").Op("*").Id(names.client)).Id(m.Name).Params(params...).Add(results).Block(body...)
}

// scope hands out param names for one generated function, renaming those
// that would shadow an import or a generated local.
type scope struct {
	reserved map[string]bool
	used     map[string]bool
}

func newScope(reserved map[string]bool) *scope {
	return &scope{reserved: reserved, used: map[string]bool{}}
}

// declare returns name, or a variant of it that is free; fallback replaces
// blank or missing names.
func (s *scope) declare(name, fallback string) string {
	if name == "" || name == "_" {
		name = fallback
	}
	candidate := name
	for n := 2; s.reserved[candidate] || s.used[candidate]; n++ {
		candidate = fmt.Sprintf("%s%d", name, n)
	}
	s.used[candidate] = true
	return candidate
}
