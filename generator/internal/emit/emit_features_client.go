package emit

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// featureClientMethod writes the typed MCP client's method for a resource,
// prompt or completer method: it reads the resource, gets the prompt or asks
// for a completion through the client's mcp.FeatureCaller and decodes the
// answer into the method's result.
func (g *emitter) featureClientMethod(s *model.Service, m *model.Method, names *serviceNames) {
	sig := g.clientSignature(m)
	caller := jen.Id("c").Dot(names.field)
	var what string
	var body []jen.Code
	switch {
	case m.Resource != nil:
		what = fmt.Sprintf("reads the MCP resource %q.", m.Resource.URI)
		if m.Resource.Template() {
			what = fmt.Sprintf("reads an MCP resource of the template %q.", m.Resource.URI)
		}
		body = g.readResourceCall(s, m, names, sig, caller)
	case m.Prompt != nil:
		what = fmt.Sprintf("gets the MCP prompt %q.", m.Prompt.Name)
		body = g.getPromptCall(s, m, names, sig, caller)
	default:
		c := m.Completer
		what = fmt.Sprintf("completes the argument %q of the MCP %s.", c.Arg, model.CompleterTarget(c))
		body = g.completeCall(m, names, sig, caller)
	}
	f := g.file
	f.Line()
	comment(f, methodDoc(m, what))
	f.Func().Params(jen.Id("c").Op("*").Id(names.mcpClient)).Id(m.Name).Params(sig.params...).Add(sig.results).Block(body...)
}

// templateURI builds the URI of a template's resource from the client
// method's params: each variable percent-encoded, integers in decimal.
func (g *emitter) templateURI(m *model.Method, sig *signature) jen.Code {
	arg := map[string]int{}
	for i, p := range m.Params {
		arg[p.Name] = i
	}
	var parts []jen.Code
	rest := m.Resource.URI
	for _, v := range m.Resource.Vars {
		before, after, _ := strings.Cut(rest, "{"+v+"}")
		if before != "" {
			parts = append(parts, jen.Lit(before))
		}
		p := m.Params[arg[v]]
		value := jen.Id(sig.args[arg[v]])
		b := p.Type.Underlying().(*types.Basic)
		switch {
		case b.Kind() == types.String && types.Identical(p.Type, types.Typ[types.String]):
			parts = append(parts, jen.Qual(model.MCPPath, "EscapeURIVar").Call(value))
		case b.Kind() == types.String:
			parts = append(parts, jen.Qual(model.MCPPath, "EscapeURIVar").Call(jen.String().Call(value)))
		case b.Info()&types.IsUnsigned != 0:
			parts = append(parts, jen.Qual("strconv", "FormatUint").Call(jen.Uint64().Call(value), jen.Lit(10)))
		default:
			parts = append(parts, jen.Qual("strconv", "FormatInt").Call(jen.Int64().Call(value), jen.Lit(10)))
		}
		rest = after
	}
	if rest != "" {
		parts = append(parts, jen.Lit(rest))
	}
	uri := jen.Add(parts[0])
	for _, p := range parts[1:] {
		uri = uri.Op("+").Add(p)
	}
	return uri
}

func (g *emitter) readResourceCall(s *model.Service, m *model.Method, names *serviceNames, sig *signature, caller *jen.Statement) []jen.Code {
	r := m.Resource
	var uri jen.Code = jen.Id(names.resourceConst(m))
	if r.Template() {
		uri = g.templateURI(m, sig)
	}
	read := caller.Clone().Dot("ReadResource").Call(sig.ctx, uri)
	if r.Result == model.ResourceContentsList {
		return []jen.Code{jen.Return(read)}
	}
	contents := sig.scope.declare("contents", "contents")
	first := jen.Id(contents).Index(jen.Lit(0))
	body := []jen.Code{
		jen.List(jen.Id(contents), jen.Err()).Op(":=").Add(read),
		jen.If(jen.Err().Op("!=").Nil()).Block(sig.ret(jen.Err())),
		jen.If(jen.Len(jen.Id(contents)).Op("==").Lit(0)).Block(
			sig.ret(jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("%s.%s: the resource has no contents", s.Name, m.Name)))),
		),
	}
	switch r.Result {
	case model.ResourceText:
		text := first.Clone().Dot("Text")
		if !types.Identical(m.Result, types.Typ[types.String]) {
			text = jen.Add(g.typeExpr(m.Result)).Call(text)
		}
		body = append(body, jen.Return(text, jen.Nil()))
	case model.ResourceBlob:
		body = append(body, jen.Return(jen.Qual("encoding/base64", "StdEncoding").Dot("DecodeString").Call(first.Clone().Dot("Blob"))))
	case model.ResourceContents:
		body = append(body, jen.Return(first, jen.Nil()))
	case model.ResourceJSON:
		body = append(body,
			jen.Var().Id("result").Add(g.typeExpr(m.Result)),
			jen.If(
				jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Index().Byte().Parens(first.Clone().Dot("Text")), jen.Op("&").Id("result")),
				jen.Err().Op("!=").Nil(),
			).Block(sig.ret(jen.Err())),
			jen.Return(jen.Id("result"), jen.Nil()),
		)
	}
	return body
}

func (g *emitter) getPromptCall(s *model.Service, m *model.Method, names *serviceNames, sig *signature, caller *jen.Statement) []jen.Code {
	p := m.Prompt
	var body []jen.Code
	var args jen.Code = jen.Nil()
	if len(p.Args) > 0 {
		local := sig.scope.declare("args", "args")
		args = jen.Id(local)
		var optional []jen.Code
		body = append(body, jen.Id(local).Op(":=").Map(jen.String()).String().ValuesFunc(func(d *jen.Group) {
			for i, a := range p.Args {
				value := jen.Id(sig.args[i])
				if !a.Required {
					value = jen.Op("*").Id(sig.args[i])
				}
				if t := a.Param.Type; !types.Identical(t, types.Typ[types.String]) && !types.Identical(t, types.NewPointer(types.Typ[types.String])) {
					value = jen.String().Call(value)
				}
				if a.Required {
					d.Lit(a.Param.JSONKey).Op(":").Add(value)
					continue
				}
				optional = append(optional, jen.If(jen.Id(sig.args[i]).Op("!=").Nil()).Block(
					jen.Id(local).Index(jen.Lit(a.Param.JSONKey)).Op("=").Add(value),
				))
			}
		}))
		body = append(body, optional...)
	}
	get := caller.Clone().Dot("GetPrompt").Call(sig.ctx, jen.Id(names.promptConst(m)), args)
	if p.Result == model.PromptFull {
		return append(body, jen.Return(get))
	}
	body = append(body,
		jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(get),
		jen.If(jen.Err().Op("!=").Nil()).Block(sig.ret(jen.Err())),
	)
	if p.Result == model.PromptMessages {
		return append(body, jen.Return(jen.Id("result").Dot("Messages"), jen.Nil()))
	}
	first := jen.Id("result").Dot("Messages").Index(jen.Lit(0))
	body = append(body, jen.If(jen.Len(jen.Id("result").Dot("Messages")).Op("==").Lit(0)).Block(
		sig.ret(jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("%s.%s: the prompt has no messages", s.Name, m.Name)))),
	))
	if p.Result == model.PromptMessage {
		return append(body, jen.Return(first, jen.Nil()))
	}
	text := first.Dot("Content").Dot("Text")
	if !types.Identical(m.Result, types.Typ[types.String]) {
		text = jen.Add(g.typeExpr(m.Result)).Call(text)
	}
	return append(body, jen.Return(text, jen.Nil()))
}

func (g *emitter) completeCall(m *model.Method, names *serviceNames, sig *signature, caller *jen.Statement) []jen.Code {
	c := m.Completer
	ref := jen.Qual(model.MCPPath, "CompletionRef").Values(jen.Id("Type").Op(":").Lit("ref/prompt"), jen.Id("Name").Op(":").Id(names.promptConst(c.Target)))
	if c.Template != "" {
		ref = jen.Qual(model.MCPPath, "CompletionRef").Values(jen.Id("Type").Op(":").Lit("ref/resource"), jen.Id("URI").Op(":").Id(names.resourceConst(c.Target)))
	}
	var context jen.Code = jen.Nil()
	if c.HasContext {
		context = jen.Id(sig.args[1])
	}
	call := caller.Clone().Dot("Complete").Call(sig.ctx, ref, jen.Lit(c.Arg), jen.Id(sig.args[0]), context)
	if c.Full {
		return []jen.Code{jen.Return(call)}
	}
	return []jen.Code{
		jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(call),
		jen.If(jen.Err().Op("!=").Nil()).Block(sig.ret(jen.Err())),
		jen.Return(jen.Id("result").Dot("Values"), jen.Nil()),
	}
}
