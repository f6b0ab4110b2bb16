package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// extension writes the MCP side of a service marked //rpcgen:extension:
// its identifier, its methods' rows in the method table, their JSON
// Schemas, the ServerExtension that serves impl, and a constructor of the
// typed client over an MCP client.
func (g *emitter) extension(s *model.Service, names *serviceNames) {
	f := g.file
	x := s.Extension
	id := s.Name + "ExtensionID"
	f.Line()
	f.Commentf("%s is the identifier of the MCP extension %s implements.", id, s.Name)
	f.Const().Id(id).Op("=").Lit(x.ID)

	f.Line()
	f.Commentf("The methods of %s are rows of the MCP method table, served and called", x.ID)
	f.Comment("only where both sides declared the extension.")
	f.Func().Id("init").Params().BlockFunc(func(b *jen.Group) {
		for _, m := range s.Methods {
			row := jen.Dict{
				jen.Id("Name"):      jen.Id(names.constant(m)),
				jen.Id("Extension"): jen.Id(id),
				jen.Id("Direction"): jen.Qual(model.MCPPath, "ClientToServer"),
			}
			if m.Idempotent {
				row[jen.Id("Retry")] = jen.Qual(model.MCPPath, "RetrySafe")
			}
			b.Qual(model.MCPPath, "RegisterMethod").Call(jen.Qual(model.MCPPath, "Method").Values(row))
		}
	})

	f.Line()
	f.Commentf("JSON Schemas (draft 2020-12) of the params and results of the %s methods.", x.ID)
	f.Const().DefsFunc(func(defs *jen.Group) {
		for _, m := range s.Methods {
			sc := g.schemas[m]
			defs.Comment(fmt.Sprintf("%s is the JSON Schema of the params of %s.", names.extParamsSchema(m), names.constant(m)))
			defs.Id(names.extParamsSchema(m)).Op("=").Add(g.schemaConst(names.extParamsSchema(m), sc.input))
			if sc.output != nil {
				defs.Comment(fmt.Sprintf("%s is the JSON Schema of the result of %s.", names.extResultSchema(m), names.constant(m)))
				defs.Id(names.extResultSchema(m)).Op("=").Add(g.schemaConst(names.extResultSchema(m), sc.output))
			}
		}
	})

	ext := s.Name + "Extension"
	f.Line()
	f.Commentf("%s returns the MCP extension %s served by impl, for", ext, x.ID)
	f.Comment("mcpserver.Server.AddExtension: the server declares it in its capabilities")
	f.Comment("and answers its methods to clients that declared it too. Params are decoded")
	f.Comment("and validated by generated code, as over JSON-RPC; the request's _meta is")
	f.Comment("left out.")
	fields := jen.Dict{
		jen.Id("ID"): jen.Id(id),
		jen.Id("Methods"): jen.Map(jen.String()).Qual(model.MCPServerPath, "ExtensionHandler").Values(jen.DictFunc(func(d jen.Dict) {
			for _, m := range s.Methods {
				d[jen.Id(names.constant(m))] = jen.Func().Params(
					jen.Id("ctx").Qual("context", "Context"),
					jen.Id("params").Qual("encoding/json", "RawMessage"),
				).Parens(jen.List(jen.Any(), jen.Error())).Block(
					jen.Return(jen.Id("h").Dot(names.serve(m)).Call(jen.Id("ctx"), jen.Qual(model.MCPPath, "ParamsWithoutMeta").Call(jen.Id("params")))),
				)
			}
		})),
	}
	if x.Settings != nil {
		fields[jen.Id("Settings")] = jen.Qual("encoding/json", "RawMessage").Call(rawString(x.Settings))
	}
	f.Func().Id(ext).Params(jen.Id("impl").Add(g.typeExpr(s.Type))).Qual(model.MCPServerPath, "ServerExtension").Block(
		jen.Id("h").Op(":=").Id(names.handler).Values(jen.Id("impl")),
		jen.Return(jen.Qual(model.MCPServerPath, "ServerExtension").Values(fields)),
	)

	ctor := "New" + s.Name + "ExtensionClient"
	f.Line()
	f.Commentf("%s returns a %s that calls the methods of the MCP extension", ctor, s.Name)
	f.Commentf("%s through c, an *mcpclient.Client whose Options.Extensions declare", x.ID)
	f.Commentf("%s; the server must declare it too.", id)
	f.Func().Id(ctor).Params(jen.Id("c").Qual(model.MCPPath, "ExtensionCaller")).Op("*").Id(names.client).Block(
		jen.Return(jen.Id("New" + names.client).Call(jen.Qual(model.MCPPath, "ExtensionConn").Call(jen.Id("c")))),
	)
}

func (n *serviceNames) extParamsSchema(m *model.Method) string {
	return n.s.Name + m.Name + "ParamsSchema"
}

func (n *serviceNames) extResultSchema(m *model.Method) string {
	return n.s.Name + m.Name + "ResultSchema"
}
