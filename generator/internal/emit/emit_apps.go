package emit

import (
	"bytes"
	"encoding/json"
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
			defs.Id(names.toolMeta(m)).Op("=").Add(rawString([]byte(toolMetaJSON(m.Tool.App))))
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
		if ui := appUIJSON(a); ui != "" {
			field("UI", jen.Qual("encoding/json", "RawMessage").Call(rawString([]byte(ui))))
		}
		v.Line()
	})
}

// toolMetaJSON is the _meta of a tool with a view: _meta.ui (resourceUri,
// visibility), and the flat "ui/resourceUri" older hosts read.
func toolMetaJSON(a *model.App) string {
	uri := strconv.Quote(a.URI) // a checked URI: ASCII without quotes or control characters
	b := []byte(`{"ui":{"resourceUri":` + uri)
	if a.Visibility != nil {
		b = append(b, `,"visibility":`...)
		b = appendStrings(b, a.Visibility)
	}
	b = append(b, `},"ui/resourceUri":`+uri+`}`...)
	return string(b)
}

// appUIJSON is the view's _meta.ui object, "" when it sets nothing.
func appUIJSON(a *model.App) string {
	var members [][]byte
	if a.CSP != nil {
		csp := []byte{'{'}
		for _, k := range model.AppCSPMembers() {
			if list, ok := a.CSP[k]; ok {
				if len(csp) > 1 {
					csp = append(csp, ',')
				}
				csp = appendStrings(append(strconv.AppendQuote(csp, k), ':'), list)
			}
		}
		members = append(members, append([]byte(`"csp":`), append(csp, '}')...))
	}
	if a.Permissions != nil {
		p := []byte(`"permissions":{`)
		for i, x := range a.Permissions {
			if i > 0 {
				p = append(p, ',')
			}
			p = append(strconv.AppendQuote(p, x), `:{}`...)
		}
		members = append(members, append(p, '}'))
	}
	if a.Domain != "" {
		members = append(members, strconv.AppendQuote([]byte(`"domain":`), a.Domain))
	}
	if a.Border != nil {
		members = append(members, strconv.AppendBool([]byte(`"prefersBorder":`), *a.Border))
	}
	if members == nil {
		return ""
	}
	b := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return string(append(b, '}'))
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, s)
	}
	return append(b, ']')
}

// mergeMeta joins the view's _meta object and the meta= object of the same
// tool, whose keys the model checked apart: the view's members first.
func mergeMeta(view string, meta []byte) json.RawMessage {
	inner := bytes.TrimSpace(meta)
	inner = bytes.TrimSpace(inner[1 : len(inner)-1])
	if len(inner) == 0 {
		return json.RawMessage(view)
	}
	out := append([]byte(view[:len(view)-1]), ',')
	out = append(out, inner...)
	return append(out, '}')
}
