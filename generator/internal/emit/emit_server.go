package emit

import (
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// handler writes the dispatcher: a runtime.Handler that routes by method
// name with a switch and decodes params straight into typed values.
func (g *emitter) handler(s *model.Service, names *serviceNames) {
	f := g.file
	impl := jen.Id("impl").Add(g.typeExpr(s.Type))

	f.Line()
	f.Commentf("New%sHandler returns a runtime.Handler that serves impl: it routes each", s.Name)
	f.Comment("request by method name, decodes its params (by name or by position), calls")
	f.Comment("impl and encodes the result. Serve it with runtime.Serve, runtime.ServeStdio")
	f.Comment("or, over HTTP, rpchttp.NewHandler.")
	f.Func().Id("New"+s.Name+"Handler").Params(impl).Qual(runtimePath, "Handler").Block(
		jen.Return(jen.Id(names.handler).Values(jen.Id("impl"))),
	)

	f.Line()
	f.Commentf("%s dispatches JSON-RPC requests to a %s.", names.handler, s.Name)
	f.Type().Id(names.handler).Struct(jen.Id("impl").Add(g.typeExpr(s.Type)))

	recv := jen.Id("h").Id(names.handler)
	f.Line()
	f.Comment("ServeRPC implements runtime.Handler.")
	f.Func().Params(recv).Id("ServeRPC").Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("req").Op("*").Qual(runtimePath, "Request"),
	).Parens(jen.List(jen.Qual("encoding/json", "RawMessage"), jen.Error())).Block(
		jen.Switch(jen.Id("req").Dot("Method")).BlockFunc(func(cases *jen.Group) {
			for _, m := range s.Methods {
				cases.Case(jen.Id(names.constant(m))).Block(
					jen.Return(jen.Id("h").Dot(names.serve(m)).Call(jen.Id("ctx"), jen.Id("req").Dot("Params"))),
				)
			}
			g.discoverCase(cases)
			cases.Default().Block(
				jen.Return(jen.Nil(), jen.Qual(runtimePath, "ErrMethodNotFound").Call(jen.Id("req").Dot("Method"))),
			)
		}),
	)

	for _, m := range s.Methods {
		g.serveMethod(s, m, names)
	}
}

func (g *emitter) serveMethod(s *model.Service, m *model.Method, names *serviceNames) {
	var body []jen.Code
	var args []jen.Code
	if m.Context != "" {
		args = append(args, jen.Id("ctx"))
	}
	// decode checks the error of the params' decoding: the generated decode
	// function of the method (see decodeEmitter.emit), runtime.NoParams without params.
	decode := func(call jen.Code) jen.Code {
		return jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	}

	switch {
	case len(m.Params) == 0:
		body = append(body, decode(jen.Qual(implPath, "NoParams").Call(jen.Id("params"))))
	case m.StructParams:
		p := m.Params[0]
		if ptr, ok := types.Unalias(p.Type).(*types.Pointer); ok {
			// Null params are a nil pointer, as encoding/json writes one.
			body = append(body,
				jen.Var().Id("p").Op("*").Add(g.typeExpr(ptr.Elem())),
				jen.If(jen.Op("!").Qual(implPath, "NullParams").Call(jen.Id("params"))).Block(
					jen.Id("p").Op("=").New(g.typeExpr(ptr.Elem())),
					decode(jen.Id(g.share.decode(m)).Call(jen.Id("params"), jen.Id("p"))),
				),
			)
		} else {
			body = append(body,
				jen.Var().Id("p").Add(g.typeExpr(p.Type)),
				decode(jen.Id(g.share.decode(m)).Call(jen.Id("params"), jen.Op("&").Id("p"))),
			)
		}
		args = append(args, jen.Id("p"))
	default:
		for _, field := range paramFields(m) {
			args = append(args, jen.Id("p").Dot(field))
		}
		body = append(body,
			jen.Var().Id("p").Id(names.params(m)),
			decode(jen.Id(g.share.decode(m)).Call(jen.Id("params"), jen.Op("&").Id("p"))),
		)
	}

	call := jen.Id("h").Dot("impl").Dot(m.Name).Call(args...)
	if m.Stream {
		body = append(body, jen.Return(jen.Qual(runtimePath, "ServeStream").Call(jen.Id("ctx"), call)))
	} else if m.Result == nil {
		body = append(body, jen.Return(jen.Nil(), call))
	} else if enc := g.encoder(s, m); enc != "" {
		// The generated encoder writes into the buffer: the server's (an
		// MCP tool's Append) or, without one (the JSON-RPC dispatcher), a
		// pooled one the result is copied out of. A value encoding/json
		// refuses is encoded again by rpcimpl, for its error, when the
		// encoder can meet one (encodeEmitter.fails).
		body = append(body,
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(call),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		)
		fallback := jen.Qual(implPath, "Result").Call(jen.Id("result"), jen.Nil())
		if g.appends(m) {
			fallback = jen.Qual(implPath, "AppendResult").Call(jen.Id("dst"), jen.Id("result"), jen.Nil())
		}
		if g.encodeFails(m) {
			body = append(body, jen.Defer().Func().Params().Block(
				jen.If(jen.Qual(implPath, "EncodeFailed").Call(jen.Recover())).Block(
					jen.List(jen.Id("res"), jen.Err()).Op("=").Add(fallback),
				),
			).Call())
		}
		if g.appends(m) {
			body = append(body,
				jen.If(jen.Id("dst").Op("==").Nil()).Block(pooledEncode(enc)...),
				jen.Return(jen.Id(enc).Call(jen.Id("dst"), jen.Op("&").Id("result")), jen.Nil()),
			)
		} else {
			body = append(body, pooledEncode(enc)...)
		}
	} else if g.appends(m) {
		body = append(body,
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(call),
			jen.Return(jen.Qual(implPath, "AppendResult").Call(jen.Id("dst"), jen.Id("result"), jen.Err())),
		)
	} else if m.Content == model.ContentNone {
		body = append(body, jen.Return(jen.Qual(implPath, "Result").Call(call)))
	} else {
		body = append(body,
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(call),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			contentEncode(m),
		)
	}

	what := "decodes the params of %s.%s, calls it and encodes its result."
	if m.Stream {
		what = "decodes the params of %s.%s, calls it and serves its stream."
	} else if m.Result == nil {
		what = "decodes the params of %s.%s and calls it."
	}
	g.file.Line()
	g.file.Commentf("%s "+what, names.serve(m), s.Name, m.Name)
	results := jen.Parens(jen.List(jen.Qual("encoding/json", "RawMessage"), jen.Error()))
	if g.encoder(s, m) != "" && g.encodeFails(m) {
		// Named, for the deferred fallback to set.
		results = jen.Parens(jen.List(jen.Id("res").Qual("encoding/json", "RawMessage"), jen.Err().Error()))
	}
	serve := g.file.Func().Params(jen.Id("h").Id(names.handler)).Id(names.serve(m)).Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("params").Qual("encoding/json", "RawMessage"),
	)
	if !g.appends(m) {
		serve.Add(results).Block(body...)
		return
	}
	serve.Parens(jen.List(jen.Qual("encoding/json", "RawMessage"), jen.Error()))
	serve.Block(jen.Return(jen.Id("h").Dot(names.append(m)).Call(jen.Id("ctx"), jen.Id("params"), jen.Nil())))
	g.file.Line()
	g.file.Commentf("%s is %s appending the encoded result to dst (the MCP", names.append(m), names.serve(m))
	g.file.Comment("tool's Append: the server hands it a buffer it reuses).")
	g.file.Func().Params(jen.Id("h").Id(names.handler)).Id(names.append(m)).Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("params").Qual("encoding/json", "RawMessage"),
		jen.Id("dst").Index().Byte(),
	).Add(results).Block(body...)
}

// encoder returns the name of the generated function encoding m's result
// (into an MCP tool's Append's buffer or, served over JSON-RPC, a pooled
// one), "" when m has no result of its own to encode (none, a stream, MCP
// content) or its result is left to encoding/json.
func (g *emitter) encoder(s *model.Service, m *model.Method) string {
	if m.Result == nil || m.Stream || m.Content != model.ContentNone {
		return ""
	}
	return g.encoders.resultEncoder(s, m)
}

// encodeFails reports whether the encoder of m's result can fail on a
// value encoding/json refuses (encodeEmitter.fails): its method then defers
// the fallback to rpcimpl.
func (g *emitter) encodeFails(m *model.Method) bool {
	return g.encoders.fails(m.Result)
}

// pooledEncode is the statement encoding result with enc into a pooled
// buffer and returning a copy of its bytes (rpcimpl.Buffer).
func pooledEncode(enc string) []jen.Code {
	return []jen.Code{
		jen.Id("buf").Op(":=").Qual(implPath, "GetBuffer").Call(),
		jen.Return(jen.Id("buf").Dot("Detach").Call(jen.Id(enc).Call(jen.Id("buf").Dot("Bytes").Call(), jen.Op("&").Id("result"))), jen.Nil()),
	}
}

// appends reports whether m's MCP tool has an Append (mcpserver.Tool.Append):
// a tool whose structured result is the method's own JSON object, encoded by
// rpcimpl, run neither as a task nor as a stream.
func (g *emitter) appends(m *model.Method) bool {
	if m.Tool == nil || m.Result == nil || m.Stream || m.Content != model.ContentNone || m.Tool.Task != "" {
		return false
	}
	sc, ok := g.schemas[m]
	return ok && !sc.wrapped
}
