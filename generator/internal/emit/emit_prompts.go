package emit

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// The handler methods of prompts and completions, which the prompt and
// template descriptors of emit_features.go call.

// promptMethod writes the handler method building the messages of the prompt of m.
func (g *emitter) promptMethod(s *model.Service, m *model.Method, names *serviceNames) {
	p := m.Prompt
	var body, args []jen.Code
	if m.Context != "" {
		args = append(args, jen.Id("ctx"))
	}
	for i, a := range p.Args {
		value := jen.Id("args").Index(jen.Lit(a.Param.JSONKey))
		if a.Required {
			if types.Identical(a.Param.Type, types.Typ[types.String]) {
				args = append(args, value)
			} else {
				args = append(args, jen.Add(g.typeExpr(a.Param.Type)).Call(value))
			}
			continue
		}
		// An optional argument the client left out is nil.
		local := fmt.Sprintf("p%d", i)
		ptr := jen.Op("&").Id("v")
		if !types.Identical(a.Param.Type, types.NewPointer(types.Typ[types.String])) {
			ptr = jen.Parens(g.typeExpr(a.Param.Type)).Call(ptr)
		}
		body = append(body,
			jen.Var().Id(local).Add(g.typeExpr(a.Param.Type)),
			jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(value), jen.Id("ok")).Block(jen.Id(local).Op("=").Add(ptr)),
		)
		args = append(args, jen.Id(local))
	}
	body = append(g.promptEnumChecks(m), body...)
	call := jen.Id("h").Dot("impl").Dot(m.Name).Call(args...)
	if p.Result == model.PromptFull {
		body = append(body, jen.Return(call))
	} else {
		body = append(body,
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(call),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		)
		var messages jen.Code
		switch p.Result {
		case model.PromptText:
			text := jen.Id("result")
			if !types.Identical(m.Result, types.Typ[types.String]) {
				text = jen.String().Call(jen.Id("result"))
			}
			messages = jen.Index().Qual(model.MCPPath, "PromptMessage").Values(jen.Values(
				jen.Id("Role").Op(":").Lit("user"),
				jen.Id("Content").Op(":").Qual(model.MCPPath, "TextContent").Call(text),
			))
		case model.PromptMessage:
			messages = jen.Index().Qual(model.MCPPath, "PromptMessage").Values(jen.Id("result"))
		case model.PromptMessages:
			messages = jen.Id("result")
		}
		body = append(body, jen.Return(jen.Op("&").Qual(model.MCPPath, "GetPromptResult").Values(jen.Id("Messages").Op(":").Add(messages)), jen.Nil()))
	}
	g.file.Line()
	g.file.Commentf("%s builds the messages of the prompt %s.%s.", names.prompt(m), s.Name, m.Name)
	g.file.Func().Params(jen.Id("h").Id(names.handler)).Id(names.prompt(m)).Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("args").Map(jen.String()).String(),
	).Parens(jen.List(jen.Op("*").Qual(model.MCPPath, "GetPromptResult"), jen.Error())).Block(body...)
}

// promptEnumChecks checks, before the method runs, that every argument of an
// enum type the client gave is one of the enum's values: the argument is
// then an invalid params error (-32602), as a tool's would be.
func (g *emitter) promptEnumChecks(m *model.Method) []jen.Code {
	var checks []jen.Code
	for _, a := range m.Prompt.Args {
		values, _ := g.decoders.sg.EnumOf(a.Param.Type)
		var cases []jen.Code
		var quoted []string
		for _, v := range values {
			if s, ok := v.(string); ok {
				cases = append(cases, jen.Lit(s))
				quoted = append(quoted, strconv.Quote(s))
			}
		}
		if len(cases) == 0 {
			continue
		}
		msg := fmt.Sprintf("argument %q must be one of %s", a.Param.JSONKey, strings.Join(quoted, ", "))
		sw := func(v jen.Code) jen.Code {
			return jen.Switch(v).Block(
				jen.Case(cases...),
				jen.Default().Return(jen.Nil(), jen.Qual(runtimePath, "InvalidParams").Call(jen.Lit("%s"), jen.Lit(msg))),
			)
		}
		value := jen.Id("args").Index(jen.Lit(a.Param.JSONKey))
		if a.Required {
			checks = append(checks, sw(value))
			continue
		}
		checks = append(checks, jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(value), jen.Id("ok")).Block(sw(jen.Id("v"))))
	}
	return checks
}

// enumArg is a prompt argument of an enum type no completer covers: it is
// completed from the enum's values.
type enumArg struct {
	name   string
	values []string
}

func (g *emitter) enumArgs(m *model.Method) []enumArg {
	var out []enumArg
	for _, a := range m.Prompt.Args {
		covered := false
		for _, c := range m.Prompt.Completers {
			covered = covered || c.Completer.Arg == a.Param.Name
		}
		if covered {
			continue
		}
		values, _ := g.decoders.sg.EnumOf(a.Param.Type)
		var strs []string
		for _, v := range values {
			if s, ok := v.(string); ok {
				strs = append(strs, s)
			}
		}
		if len(strs) > 0 {
			out = append(out, enumArg{a.Param.JSONKey, strs})
		}
	}
	return out
}

// completeMethod writes the completion handler of the prompt or template
// of m: one case per completed argument.
func (g *emitter) completeMethod(s *model.Service, m *model.Method, names *serviceNames, enums []enumArg) {
	completers := m.Prompt.CompletersOrNil()
	what := "the arguments of the prompt"
	if m.Resource != nil {
		completers = m.Resource.Completers
		what = "the variables of the resource template"
	}
	body := jen.Switch(jen.Id("req").Dot("Argument")).BlockFunc(func(cases *jen.Group) {
		for _, c := range completers {
			args := []jen.Code{}
			if c.Context != "" {
				args = append(args, jen.Id("ctx"))
			}
			args = append(args, jen.Id("req").Dot("Value"))
			if c.Completer.HasContext {
				args = append(args, jen.Id("req").Dot("Context"))
			}
			call := jen.Id("h").Dot("impl").Dot(c.Name).Call(args...)
			if c.Completer.Full {
				cases.Case(jen.Lit(c.Completer.Arg)).Block(jen.Return(call))
				continue
			}
			cases.Case(jen.Lit(c.Completer.Arg)).Block(
				jen.List(jen.Id("values"), jen.Err()).Op(":=").Add(call),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Op("&").Qual(model.MCPPath, "Completion").Values(jen.Id("Values").Op(":").Id("values")), jen.Nil()),
			)
		}
		for _, e := range enums {
			lits := make([]jen.Code, len(e.values))
			for i, v := range e.values {
				lits[i] = jen.Lit(v)
			}
			cases.Case(jen.Lit(e.name)).Block(
				jen.Comment("An enum: its values that start with what the user typed."),
				jen.Id("values").Op(":=").Index().String().Values(),
				jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Index().String().Values(lits...)).Block(
					jen.If(jen.Qual("strings", "HasPrefix").Call(jen.Id("v"), jen.Id("req").Dot("Value"))).Block(
						jen.Id("values").Op("=").Append(jen.Id("values"), jen.Id("v")),
					),
				),
				jen.Return(jen.Op("&").Qual(model.MCPPath, "Completion").Values(jen.Id("Values").Op(":").Id("values")), jen.Nil()),
			)
		}
	})
	g.file.Line()
	g.file.Commentf("%s completes %s %s.%s.", names.complete(m), what, s.Name, m.Name)
	g.file.Func().Params(jen.Id("h").Id(names.handler)).Id(names.complete(m)).Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("req").Op("*").Qual(model.MCPServerPath, "CompleteRequest"),
	).Parens(jen.List(jen.Op("*").Qual(model.MCPPath, "Completion"), jen.Error())).Block(
		body,
		jen.Return(jen.Op("&").Qual(model.MCPPath, "Completion").Values(jen.Id("Values").Op(":").Index().String().Values()), jen.Nil()),
	)
}
