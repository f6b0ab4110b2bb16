package emit

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// This file writes the MCP Apps side of a service (//rpcgen:app): each
// view's URI constant, its HTML embedded with go:embed, the tools' _meta
// naming their views, and <Svc>Apps for mcpserver.Server.AddApps.

func (n *serviceNames) appURI(m *model.Method) string { return n.s.Name + m.Name + "AppURI" }
func (n *serviceNames) appHTML(m *model.Method) string {
	return naming.LowerFirst(n.s.Name) + m.Name + "AppHTML"
}
func (n *serviceNames) toolMeta(m *model.Method) string {
	return naming.LowerFirst(n.s.Name) + m.Name + "ToolMeta"
}

// appsOf returns the methods of s whose tools have a view, in source order.
func appsOf(s *model.Service) []*model.Method {
	var out []*model.Method
	for _, m := range s.Methods {
		if m.Tool != nil && m.Tool.App != nil {
			out = append(out, m)
		}
	}
	return out
}

// apps writes the views of a service's tools.
func (g *emitter) apps(s *model.Service, names *serviceNames, apps []*model.Method) {
	f := g.file
	f.Anon("embed")
	f.Line()
	f.Commentf("MCP App views (extension io.modelcontextprotocol/ui) of the %s tools: the", s.Name)
	f.Comment("ui:// resource of each, and the _meta that names it in tools/list.")
	f.Const().DefsFunc(func(defs *jen.Group) {
		for _, m := range apps {
			defs.Comment(fmt.Sprintf("%s is the URI of the view of the %s tool.", names.appURI(m), m.Tool.Name))
			defs.Id(names.appURI(m)).Op("=").Lit(m.Tool.App.URI)
		}
		for _, m := range apps {
			defs.Id(names.toolMeta(m)).Op("=").Add(rawString([]byte(m.Tool.App.ToolMeta())))
		}
	})
	for _, m := range apps {
		f.Line()
		f.Commentf("%s is %s, the view of the %s tool.", names.appHTML(m), m.Tool.App.File, m.Tool.Name)
		f.Comment("//go:embed " + strconv.Quote(m.Tool.App.File))
		f.Var().Id(names.appHTML(m)).String()
	}
	f.Line()
	f.Commentf("%sApps returns the views of the %s tools, for mcpserver.Server.AddApps,", s.Name, s.Name)
	f.Comment("which also declares the MCP Apps extension.")
	f.Func().Id(s.Name+"Apps").Params().Index().Qual(model.MCPServerPath, "App").Block(
		jen.Return(jen.Index().Qual(model.MCPServerPath, "App").ValuesFunc(func(list *jen.Group) {
			for _, m := range apps {
				list.Add(appLiteral(m, names))
			}
		})),
	)
}

func appLiteral(m *model.Method, names *serviceNames) jen.Code {
	a := m.Tool.App
	return jen.ValuesFunc(func(v *jen.Group) {
		field := func(name string, value jen.Code) { v.Line().Id(name).Op(":").Add(value) }
		field("URI", jen.Id(names.appURI(m)))
		field("Name", jen.Lit(a.Name))
		if a.Title != "" {
			field("Title", jen.Lit(a.Title))
		}
		if a.Description != "" {
			field("Description", jen.Lit(a.Description))
		}
		field("HTML", jen.Id(names.appHTML(m)))
		if ui := a.UIMeta(); ui != "" {
			field("UI", jen.Qual("encoding/json", "RawMessage").Call(rawString([]byte(ui))))
		}
		v.Line()
	})
}
