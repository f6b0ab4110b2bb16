package emit

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// client writes the typed client: a struct implementing the interface by
// calling through a runtime.Caller.
func (g *emitter) client(s *model.Service, names *serviceNames) {
	f := g.file
	f.Line()
	f.Commentf("%s calls a remote %s over JSON-RPC 2.0. It implements", names.client, s.Name)
	f.Commentf("%s, so a caller can swap a local implementation for a remote one", s.Name)
	f.Comment("without other changes.")
	f.Type().Id(names.client).Struct(jen.Id(names.field).Qual(runtimePath, "Caller"))

	f.Line()
	f.Var().Id("_").Add(g.typeExpr(s.Type)).Op("=").Parens(jen.Op("*").Id(names.client)).Parens(jen.Nil())

	f.Line()
	f.Commentf("New%s returns a %s that calls through c: a *runtime.Conn", names.client, s.Name)
	f.Comment("(stdio, subprocess, in-memory pipe) or an *rpchttp.Client (HTTP).")
	f.Func().Id("New" + names.client).Params(jen.Id("c").Qual(runtimePath, "Caller")).Op("*").Id(names.client).Block(
		jen.Return(jen.Op("&").Id(names.client).Values(jen.Id(names.field).Op(":").Id("c"))),
	)

	for _, m := range s.Methods {
		g.clientMethod(s, m, names)
	}
}

// signature is a generated client method's parameter list and results, with
// the pieces its body needs.
type signature struct {
	params  []jen.Code
	results jen.Code
	ctx     jen.Code              // the context to call with
	wire    func(string) jen.Code // the params value, given the params struct's name
	zero    jen.Code              // the zero result, nil when there is none
	item    jen.Code              // a stream's item type; nil for other methods
	args    []string              // the names of the params after the context
	scope   *scope                // hands out names for the body's locals
}

// ret returns from the method with err (and the zero result); a stream
// method returns a sequence of err alone.
func (s *signature) ret(err jen.Code) jen.Code {
	if s.item != nil {
		return jen.Return(jen.Qual(implPath, "StreamError").Types(s.item).Call(err))
	}
	if s.zero == nil {
		return jen.Return(err)
	}
	return jen.Return(s.zero, err)
}

// clientSignature declares the params of a client method for m, renaming
// those that would shadow an import or a generated local.
func (g *emitter) clientSignature(m *model.Method) *signature {
	scope := newScope(g.reserved)
	sig := &signature{ctx: jen.Qual("context", "Background").Call(), results: jen.Error(), scope: scope}
	if m.Context != "" {
		name := scope.declare(m.Context, "ctx")
		sig.params = append(sig.params, jen.Id(name).Qual("context", "Context"))
		sig.ctx = jen.Id(name)
	}
	argNames := make([]string, len(m.Params))
	for i, p := range m.Params {
		argNames[i] = scope.declare(p.Name, fmt.Sprintf("p%d", i))
		sig.params = append(sig.params, jen.Id(argNames[i]).Add(g.typeExpr(p.Type)))
	}
	sig.args = argNames
	sig.wire = func(paramsType string) jen.Code {
		switch {
		case len(m.Params) == 0:
			return jen.Nil()
		case m.StructParams:
			if _, ptr := types.Unalias(m.Params[0].Type).(*types.Pointer); ptr {
				return jen.Id(argNames[0])
			}
			// By address, as the other params go in a params struct: a
			// field whose MarshalJSON has a pointer receiver (big.Int) is
			// written by it only when encoding/json can address it.
			return jen.Op("&").Id(argNames[0])
		}
		fields := paramFields(m)
		return jen.Op("&").Id(paramsType).ValuesFunc(func(v *jen.Group) {
			for i := range m.Params {
				v.Id(fields[i]).Op(":").Id(argNames[i])
			}
		})
	}
	switch {
	case m.Stream:
		sig.item = g.typeExpr(m.Result)
		sig.results = jen.Qual("iter", "Seq2").Types(g.typeExpr(m.Result), jen.Error())
	case m.Result != nil:
		sig.results = jen.Parens(jen.List(g.typeExpr(m.Result), jen.Error()))
		sig.zero = g.zeroValue(m.Result)
	}
	return sig
}

func (g *emitter) clientMethod(s *model.Service, m *model.Method, names *serviceNames) {
	f := g.file
	sig := g.clientSignature(m)
	caller := jen.Id("c").Dot(names.field)
	constant := jen.Id(names.constant(m))
	wire := sig.wire(names.params(m))

	var body []jen.Code
	switch {
	case m.Notification:
		body = append(body, jen.Return(caller.Dot("Notify").Call(sig.ctx, constant, wire)))
	case m.Stream:
		body = append(body, jen.Return(jen.Qual(runtimePath, "Stream").Types(g.typeExpr(m.Result)).Call(sig.ctx, caller, constant, wire)))
	case m.Result == nil && m.Idempotent:
		body = append(body,
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Qual(runtimePath, "CallIdempotent").Types(jen.Struct()).Call(sig.ctx, caller, constant, wire),
			jen.Return(jen.Err()))
	case m.Result == nil:
		body = append(body, jen.Return(caller.Dot("Call").Call(sig.ctx, constant, wire, jen.Nil())))
	case m.Idempotent:
		if dec := g.results.resultDecoder(s, m); dec != "" {
			body = append(body, jen.Return(jen.Qual(implPath, "CallIdempotent").Call(sig.ctx, caller, constant, wire, jen.Id(dec))))
			break
		}
		body = append(body, jen.Return(jen.Qual(runtimePath, "CallIdempotent").Types(g.typeExpr(m.Result)).Call(sig.ctx, caller, constant, wire)))
	default:
		if dec := g.results.resultDecoder(s, m); dec != "" {
			body = append(body, jen.Return(jen.Qual(implPath, "Call").Call(sig.ctx, caller, constant, wire, jen.Id(dec))))
			break
		}
		body = append(body, jen.Return(jen.Qual(runtimePath, "Call").Types(g.typeExpr(m.Result)).Call(sig.ctx, caller, constant, wire)))
	}

	what := fmt.Sprintf("calls the remote method %q.", m.RPCName)
	switch {
	case m.Notification:
		what = fmt.Sprintf("sends the notification %q and returns once it is\nwritten: the server never answers.", m.RPCName)
	case m.Stream:
		what = fmt.Sprintf("calls the remote stream method %q: each range over the\nresult is one call, whose items come as they are sent; breaking out of\nthe loop ends the call on the server.", m.RPCName)
	case m.Idempotent:
		what = fmt.Sprintf("calls the remote method %q, which is idempotent: a\ncaller that reconnects (runtime.Redialer) may retry it.", m.RPCName)
	}
	f.Line()
	comment(f, methodDoc(m, what))
	f.Func().Params(jen.Id("c").Op("*").Id(names.client)).Id(m.Name).Params(sig.params...).Add(sig.results).Block(body...)
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
