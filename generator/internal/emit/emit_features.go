package emit

import (
	"fmt"
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// The MCP features besides tools (see features.go): descriptor constants,
// the functions returning a service's resources, resource templates and
// prompts, the handler methods they call, and Register<Svc>.

// serviceFeatures sorts a service's feature methods by kind, in source order.
type serviceFeatures struct {
	resources, templates, prompts []*model.Method
	apps                          []*model.Method // tools with a view
}

func featuresOf(s *model.Service) *serviceFeatures {
	f := &serviceFeatures{apps: appsOf(s)}
	for _, m := range s.Methods {
		switch {
		case m.Resource != nil && m.Resource.Template():
			f.templates = append(f.templates, m)
		case m.Resource != nil:
			f.resources = append(f.resources, m)
		case m.Prompt != nil:
			f.prompts = append(f.prompts, m)
		}
	}
	return f
}

func (f *serviceFeatures) any() bool {
	return len(f.resources)+len(f.templates)+len(f.prompts) > 0
}

// hasFeatures reports whether s has resources, templates, prompts or
// completers: its MCP client then calls through an mcp.FeatureCaller.
func hasFeatures(s *model.Service) bool {
	for _, m := range s.Methods {
		if m.Resource != nil || m.Prompt != nil || m.Completer != nil {
			return true
		}
	}
	return false
}

func (n *serviceNames) resourceConst(m *model.Method) string {
	if m.Resource.Template() {
		return n.s.Name + m.Name + "URITemplate"
	}
	return n.s.Name + m.Name + "URI"
}
func (n *serviceNames) promptConst(m *model.Method) string { return n.s.Name + m.Name + "Prompt" }
func (n *serviceNames) read(m *model.Method) string        { return "read" + m.Name }
func (n *serviceNames) prompt(m *model.Method) string      { return "prompt" + m.Name }
func (n *serviceNames) complete(m *model.Method) string    { return "complete" + m.Name }

// features writes what a service's resources, templates and prompts need.
func (g *emitter) features(s *model.Service, names *serviceNames, hasTools bool) {
	feats := featuresOf(s)
	if !feats.any() {
		if len(feats.apps) > 0 {
			g.register(s, feats, hasTools)
		}
		return
	}
	f := g.file
	f.Line()
	f.Commentf("MCP resource URIs, resource templates and prompt names of the %s service.", s.Name)
	f.Const().DefsFunc(func(defs *jen.Group) {
		for _, m := range feats.resources {
			defs.Comment(fmt.Sprintf("%s is the URI of the MCP resource %s.%s.", names.resourceConst(m), s.Name, m.Name))
			defs.Id(names.resourceConst(m)).Op("=").Lit(m.Resource.URI)
		}
		for _, m := range feats.templates {
			defs.Comment(fmt.Sprintf("%s is the URI template of the MCP resources of %s.%s.", names.resourceConst(m), s.Name, m.Name))
			defs.Id(names.resourceConst(m)).Op("=").Lit(m.Resource.URI)
		}
		for _, m := range feats.prompts {
			defs.Comment(fmt.Sprintf("%s is the name of the MCP prompt %s.%s.", names.promptConst(m), s.Name, m.Name))
			defs.Id(names.promptConst(m)).Op("=").Lit(m.Prompt.Name)
		}
	})

	if len(feats.resources) > 0 {
		f.Line()
		f.Commentf("%sResources returns the resources of impl, for mcpserver.Server.AddResources.", s.Name)
		g.featureList(s, names, "Resources", "Resource", feats.resources, g.resourceLiteral)
	}
	if len(feats.templates) > 0 {
		f.Line()
		f.Commentf("%sResourceTemplates returns the resource templates of impl, for", s.Name)
		f.Comment("mcpserver.Server.AddResourceTemplates.")
		g.featureList(s, names, "ResourceTemplates", "ResourceTemplate", feats.templates, g.resourceLiteral)
	}
	if len(feats.prompts) > 0 {
		f.Line()
		f.Commentf("%sPrompts returns the prompts of impl, for mcpserver.Server.AddPrompts.", s.Name)
		g.featureList(s, names, "Prompts", "Prompt", feats.prompts, g.promptLiteral)
	}
	g.register(s, feats, hasTools)

	for _, m := range append(feats.resources, feats.templates...) {
		g.readMethod(s, m, names)
		if len(m.Resource.Completers) > 0 {
			g.completeMethod(s, m, names, nil)
		}
	}
	for _, m := range feats.prompts {
		g.promptMethod(s, m, names)
		if enums := g.enumArgs(m); len(m.Prompt.Completers) > 0 || len(enums) > 0 {
			g.completeMethod(s, m, names, enums)
		}
	}
}

// featureList writes func <Svc><suffix>(impl <Svc>) []mcp.<typ>.
func (g *emitter) featureList(s *model.Service, names *serviceNames, suffix, typ string, methods []*model.Method, literal func(*model.Method, *serviceNames) jen.Code) {
	g.file.Func().Id(s.Name+suffix).Params(jen.Id("impl").Add(g.typeExpr(s.Type))).Index().Qual(model.MCPServerPath, typ).Block(
		jen.Id("h").Op(":=").Id(names.handler).Values(jen.Id("impl")),
		jen.Return(jen.Index().Qual(model.MCPServerPath, typ).ValuesFunc(func(list *jen.Group) {
			for _, m := range methods {
				list.Add(literal(m, names))
			}
		})),
	)
}

func (g *emitter) resourceLiteral(m *model.Method, names *serviceNames) jen.Code {
	r := m.Resource
	return jen.ValuesFunc(func(v *jen.Group) {
		field := func(name string, value jen.Code) { v.Line().Id(name).Op(":").Add(value) }
		if r.Template() {
			field("URITemplate", jen.Id(names.resourceConst(m)))
		} else {
			field("URI", jen.Id(names.resourceConst(m)))
		}
		field("Name", jen.Lit(r.Name))
		if r.Title != "" {
			field("Title", jen.Lit(r.Title))
		}
		if desc := toolDescription(m); desc != "" {
			field("Description", jen.Lit(desc))
		}
		if mime := r.DefaultMIME(); mime != "" {
			field("MIMEType", jen.Lit(mime))
		}
		descriptorFields(field, r.Icons, r.Meta)
		field("Handler", jen.Id("h").Dot(names.read(m)))
		if len(r.Completers) > 0 {
			field("Complete", jen.Id("h").Dot(names.complete(m)))
		}
		v.Line()
	})
}

func (g *emitter) promptLiteral(m *model.Method, names *serviceNames) jen.Code {
	p := m.Prompt
	return jen.ValuesFunc(func(v *jen.Group) {
		field := func(name string, value jen.Code) { v.Line().Id(name).Op(":").Add(value) }
		field("Name", jen.Id(names.promptConst(m)))
		if p.Title != "" {
			field("Title", jen.Lit(p.Title))
		}
		if desc := toolDescription(m); desc != "" {
			field("Description", jen.Lit(desc))
		}
		if len(p.Args) > 0 {
			field("Arguments", jen.Index().Qual(model.MCPPath, "PromptArgument").ValuesFunc(func(args *jen.Group) {
				for _, a := range p.Args {
					args.Line().ValuesFunc(func(av *jen.Group) {
						av.Id("Name").Op(":").Lit(a.Param.JSONKey)
						if desc := schema.WithEnumNotes(a.Param.Doc, g.decoders.sg.EnumNotes(a.Param.Type)); desc != "" {
							av.Id("Description").Op(":").Lit(desc)
						}
						if a.Required {
							av.Id("Required").Op(":").True()
						}
					})
				}
				args.Line()
			}))
		}
		descriptorFields(field, p.Icons, p.Meta)
		field("Handler", jen.Id("h").Dot(names.prompt(m)))
		if len(p.Completers) > 0 || len(g.enumArgs(m)) > 0 {
			field("Complete", jen.Id("h").Dot(names.complete(m)))
		}
		v.Line()
	})
}

// register writes Register<Svc>, which adds everything the service offers.
func (g *emitter) register(s *model.Service, feats *serviceFeatures, hasTools bool) {
	f := g.file
	f.Line()
	var kinds []string
	for _, k := range []struct {
		name string
		has  bool
	}{{"tools", hasTools}, {"resources", len(feats.resources) > 0}, {"resource templates", len(feats.templates) > 0}, {"prompts", len(feats.prompts) > 0}, {"tools' views", len(feats.apps) > 0}} {
		if k.has {
			kinds = append(kinds, k.name)
		}
	}
	list := strings.Join(kinds, ", ")
	if n := len(kinds); n > 1 {
		list = strings.Join(kinds[:n-1], ", ") + " and " + kinds[n-1]
	}
	f.Commentf("Register%s adds the %s of impl to srv.", s.Name, list)
	add := func(method, list string) jen.Code {
		return jen.Id("srv").Dot(method).Call(jen.Id(s.Name + list).Call(jen.Id("impl")).Op("..."))
	}
	f.Func().Id("Register"+s.Name).Params(jen.Id("srv").Op("*").Qual(model.MCPServerPath, "Server"), jen.Id("impl").Add(g.typeExpr(s.Type))).BlockFunc(func(b *jen.Group) {
		if hasTools {
			b.Add(add("AddTools", "Tools"))
		}
		if len(feats.resources) > 0 {
			b.Add(add("AddResources", "Resources"))
		}
		if len(feats.templates) > 0 {
			b.Add(add("AddResourceTemplates", "ResourceTemplates"))
		}
		if len(feats.prompts) > 0 {
			b.Add(add("AddPrompts", "Prompts"))
		}
		if len(feats.apps) > 0 {
			b.Id("srv").Dot("AddApps").Call(jen.Id(s.Name + "Apps").Call().Op("..."))
		}
	})
}

// readMethod writes the handler method reading the resource of m.
func (g *emitter) readMethod(s *model.Service, m *model.Method, names *serviceNames) {
	r := m.Resource
	var body, args []jen.Code
	if m.Context != "" {
		args = append(args, jen.Id("ctx"))
	}
	for i, p := range m.Params {
		value := jen.Id("req").Dot("Vars").Index(jen.Lit(p.Name))
		b := p.Type.Underlying().(*types.Basic)
		if b.Kind() == types.String {
			if types.Identical(p.Type, types.Typ[types.String]) {
				args = append(args, value)
			} else {
				args = append(args, jen.Add(g.typeExpr(p.Type)).Call(value))
			}
			continue
		}
		// An integer variable that does not parse names no resource.
		local := fmt.Sprintf("v%d", i)
		parse, bits := "ParseInt", intBits(b)
		if b.Info()&types.IsUnsigned != 0 {
			parse = "ParseUint"
		}
		body = append(body,
			jen.List(jen.Id(local), jen.Err()).Op(":=").Qual("strconv", parse).Call(value, jen.Lit(10), jen.Lit(bits)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual(model.MCPServerPath, "ResourceNotFound").Call(jen.Id("req").Dot("URI")))),
		)
		args = append(args, jen.Add(g.typeExpr(p.Type)).Call(jen.Id(local)))
	}
	call := jen.Id("h").Dot("impl").Dot(m.Name).Call(args...)
	if r.Result == model.ResourceContentsList {
		body = append(body, jen.Return(call))
	} else {
		body = append(body,
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(call),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		)
	}
	one := func(field string, value jen.Code) jen.Code {
		return jen.Return(jen.Index().Qual(model.MCPPath, "ResourceContents").Values(jen.Values(
			jen.Id("URI").Op(":").Id("req").Dot("URI"),
			jen.Id("MIMEType").Op(":").Lit(r.DefaultMIME()),
			jen.Id(field).Op(":").Add(value),
		)), jen.Nil())
	}
	switch r.Result {
	case model.ResourceText:
		text := jen.Id("result")
		if !types.Identical(m.Result, types.Typ[types.String]) {
			text = jen.String().Call(jen.Id("result"))
		}
		body = append(body, one("Text", text))
	case model.ResourceBlob:
		body = append(body, one("Blob", jen.Qual("encoding/base64", "StdEncoding").Dot("EncodeToString").Call(jen.Id("result"))))
	case model.ResourceContents:
		body = append(body,
			jen.If(jen.Id("result").Dot("URI").Op("==").Lit("")).Block(jen.Id("result").Dot("URI").Op("=").Id("req").Dot("URI")),
			jen.Return(jen.Index().Qual(model.MCPPath, "ResourceContents").Values(jen.Id("result")), jen.Nil()),
		)
	case model.ResourceJSON:
		body = append(body,
			jen.List(jen.Id("text"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("result")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			one("Text", jen.String().Call(jen.Id("text"))),
		)
	}
	what := "reads the resource %s.%s."
	if r.Template() {
		what = "reads a resource of the template %s.%s."
	}
	g.file.Line()
	g.file.Commentf("%s "+what, names.read(m), s.Name, m.Name)
	g.file.Func().Params(jen.Id("h").Id(names.handler)).Id(names.read(m)).Params(
		jen.Id("ctx").Qual("context", "Context"),
		jen.Id("req").Op("*").Qual(model.MCPServerPath, "ReadResourceRequest"),
	).Parens(jen.List(jen.Index().Qual(model.MCPPath, "ResourceContents"), jen.Error())).Block(body...)
}

// intBits is the bitSize strconv parses an integer of kind b with.
func intBits(b *types.Basic) int {
	switch b.Kind() {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	case types.Int64, types.Uint64:
		return 64
	}
	return 0 // int, uint, uintptr: the size of int
}
