package emit

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// examples declares <Svc>Examples, the explicit examples of s's methods,
// when they have any: what a test runs with runtime.CheckExamples. An
// error example refers to the declared error's variable, so it follows the
// code the implementation really returns.
func (g *emitter) examples(s *model.Service, names *serviceNames) {
	var items []jen.Code
	for _, m := range s.Methods {
		for _, ex := range m.Examples {
			d := jen.Dict{
				jen.Id("Name"):   jen.Lit(ex.Name),
				jen.Id("Method"): jen.Id(names.constant(m)),
				jen.Id("Params"): rawJSON(ex.Params),
			}
			if ex.Error != nil {
				e := jen.Dict{
					jen.Id("Code"):    jen.Id(ex.Error.GoName).Dot("Code"),
					jen.Id("Message"): jen.Id(ex.Error.GoName).Dot("Message"),
				}
				if ex.ErrorData != nil {
					e[jen.Id("Data")] = rawJSON(ex.ErrorData)
				}
				d[jen.Id("Error")] = jen.Op("&").Qual(runtimePath, "Error").Values(e)
			} else {
				d[jen.Id("Result")] = rawJSON(ex.Result)
			}
			items = append(items, jen.Values(d))
		}
	}
	if len(items) == 0 {
		return
	}
	name := s.Name + "Examples"
	g.file.Line()
	for _, line := range []string{
		fmt.Sprintf("%s are the explicit examples of the %s methods (//rpcgen:example),", name, s.Name),
		"as the OpenRPC document and the reference show them. A test runs them against",
		"the implementation:",
		"",
		fmt.Sprintf("\tif err := runtime.CheckExamples(ctx, New%sHandler(impl), %s); err != nil {", s.Name, name),
		"\t\tt.Error(err)",
		"\t}",
	} {
		g.file.Comment(line)
	}
	g.file.Var().Id(name).Op("=").Index().Qual(runtimePath, "Example").Values(items...)
}

// rawJSON is json.RawMessage(text) with text as a raw string literal when
// it can be one.
func rawJSON(text []byte) jen.Code {
	lit := jen.Lit(string(text))
	if strconv.CanBackquote(string(text)) {
		lit = jen.Op("`" + string(text) + "`")
	}
	return jen.Qual("encoding/json", "RawMessage").Call(lit)
}
