package emit

import (
	"encoding/json"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// iconsLit renders icons as a []mcp.Icon literal.
func iconsLit(icons []mcp.Icon) jen.Code {
	return jen.Index().Qual(model.MCPPath, "Icon").ValuesFunc(func(list *jen.Group) {
		for _, ic := range icons {
			list.Line().ValuesFunc(func(v *jen.Group) {
				v.Id("Src").Op(":").Lit(ic.Src)
				if ic.MIMEType != "" {
					v.Id("MIMEType").Op(":").Lit(ic.MIMEType)
				}
				if len(ic.Sizes) > 0 {
					v.Id("Sizes").Op(":").Index().String().ValuesFunc(func(g *jen.Group) {
						for _, s := range ic.Sizes {
							g.Lit(s)
						}
					})
				}
				if ic.Theme != "" {
					v.Id("Theme").Op(":").Lit(ic.Theme)
				}
			})
		}
		list.Line()
	})
}

// descriptorFields adds the Icons and Meta fields of a descriptor literal,
// those that are set.
func descriptorFields(field func(string, jen.Code), icons []mcp.Icon, meta json.RawMessage) {
	if len(icons) > 0 {
		field("Icons", iconsLit(icons))
	}
	if len(meta) > 0 {
		lit := jen.Lit(string(meta))
		if !strings.ContainsAny(string(meta), "`\r") {
			lit = jen.Op("`" + string(meta) + "`") // readable: compact JSON in a raw string
		}
		field("Meta", jen.Qual("encoding/json", "RawMessage").Call(lit))
	}
}

// serviceIcons writes var <Svc>Icons, the interface's //rpcgen:icon lines,
// for the server's mcp.Implementation.
func (g *emitter) serviceIcons(s *model.Service) {
	if len(s.Icons) == 0 {
		return
	}
	g.file.Line()
	g.file.Commentf("%sIcons are the icons of the %s interface's //rpcgen:icon lines, for the", s.Name, s.Name)
	g.file.Comment("server's mcp.Implementation (Icons), which clients show from 2025-11-25 on.")
	g.file.Var().Id(s.Name + "Icons").Op("=").Add(iconsLit(s.Icons))
}
