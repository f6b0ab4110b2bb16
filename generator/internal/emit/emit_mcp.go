package emit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// toolSchemas are a tool's JSON Schemas, rendered once while emitting.
type toolSchemas struct {
	input, output []byte
	wrapped       bool // a non-object result travels as {"result": R}
}

// tools writes the MCP side of a service: tool-name constants, the schemas
// as constants, the function returning the tools, and the typed MCP client.
func (g *emitter) tools(s *model.Service, names *serviceNames) {
	var tools []*model.Method
	for _, m := range s.Methods {
		if m.Tool != nil {
			tools = append(tools, m)
		}
	}
	if len(tools) > 0 {
		g.toolDecls(s, names, tools)
	}
	if apps := appsOf(s); len(apps) > 0 {
		g.apps(s, names, apps)
	}
	g.features(s, names, len(tools) > 0)
	g.serviceIcons(s)
	g.mcpClient(s, names)
}

func (g *emitter) toolDecls(s *model.Service, names *serviceNames, tools []*model.Method) {
	f := g.file
	f.Line()
	f.Commentf("MCP tool names of the %s service.", s.Name)
	f.Const().DefsFunc(func(defs *jen.Group) {
		for _, m := range tools {
			defs.Comment(fmt.Sprintf("%s is the MCP tool name of %s.%s.", names.tool(m), s.Name, m.Name))
			defs.Id(names.tool(m)).Op("=").Lit(m.Tool.Name)
		}
	})
	g.digestDecls(s, names, tools)

	f.Line()
	f.Commentf("JSON Schemas (draft 2020-12) of the %s tools' arguments and results.", s.Name)
	f.Const().DefsFunc(func(defs *jen.Group) {
		for _, m := range tools {
			sc := g.schemas[m]
			defs.Id(names.inputSchema(m)).Op("=").Add(g.schemaConst(names.inputSchema(m), sc.input))
			if sc.output != nil {
				defs.Id(names.outputSchema(m)).Op("=").Add(g.schemaConst(names.outputSchema(m), sc.output))
			}
		}
	})

	f.Line()
	f.Commentf("%s returns the methods of impl as MCP tools, for mcpserver.Server.AddTools.", names.tools)
	f.Comment("Arguments are decoded and validated against the tool's input schema by")
	f.Comment("generated code; a call that fails validation gets an error result that")
	f.Comment("names the field, so the model can correct it.")
	f.Func().Id(names.tools).Params(jen.Id("impl").Add(g.typeExpr(s.Type))).Index().Qual(model.MCPServerPath, "Tool").Block(
		jen.Id("h").Op(":=").Id(names.handler).Values(jen.Id("impl")),
		jen.Return(jen.Index().Qual(model.MCPServerPath, "Tool").ValuesFunc(func(list *jen.Group) {
			for _, m := range tools {
				list.Add(g.toolLiteral(m, names))
			}
		})),
	)
}

func (g *emitter) toolLiteral(m *model.Method, names *serviceNames) jen.Code {
	sc := g.schemas[m]
	return jen.ValuesFunc(func(v *jen.Group) {
		field := func(name string, value jen.Code) { v.Line().Id(name).Op(":").Add(value) }
		field("Name", jen.Id(names.tool(m)))
		if m.Tool.Title != "" {
			field("Title", jen.Lit(m.Tool.Title))
		}
		if desc := toolDescription(m); desc != "" {
			field("Description", jen.Lit(desc))
		}
		field("InputSchema", jen.Qual("encoding/json", "RawMessage").Call(jen.Id(names.inputSchema(m))))
		if sc.output != nil {
			field("OutputSchema", jen.Qual("encoding/json", "RawMessage").Call(jen.Id(names.outputSchema(m))))
		}
		if a := annotations(m.Tool); a != nil {
			field("Annotations", a)
		}
		if len(m.Tool.Scopes) > 0 {
			field("Scopes", jen.Index().String().ValuesFunc(func(g *jen.Group) {
				for _, sc := range m.Tool.Scopes {
					g.Lit(sc)
				}
			}))
		}
		meta := m.Tool.Meta
		if m.Tool.App != nil && len(meta) > 0 {
			meta = m.Tool.DescriptorMeta()
		}
		descriptorFields(field, m.Tool.Icons, meta)
		field("Digest", jen.Id(names.digest(m)))
		if len(m.Errors) > 0 {
			// The names the description gives, for the text of a failed call.
			field("Errors", jen.Index().Qual(model.MCPServerPath, "DeclaredError").ValuesFunc(func(g *jen.Group) {
				for _, e := range m.Errors {
					g.Values(jen.Id("Name").Op(":").Lit(e.Name), jen.Id("Code").Op(":").Id(e.GoName).Dot("Code"))
				}
			}))
		}
		if m.Tool.App != nil && len(m.Tool.Meta) == 0 {
			field("Meta", jen.Qual("encoding/json", "RawMessage").Call(jen.Id(names.toolMeta(m))))
		}
		handler := jen.Id("h").Dot(names.serve(m))
		if m.Stream {
			handler = jen.Qual(model.MCPServerPath, "StreamTool").Call(handler)
		}
		if sc.wrapped {
			handler = jen.Qual(model.MCPServerPath, "WrapResult").Call(handler)
		}
		if m.Content != model.ContentNone {
			handler = contentHandler(m, handler)
		}
		field("Handler", handler)
		if m.Content != model.ContentNone {
			field("Content", jen.True())
		} else if !m.Stream {
			// serve<Method> encodes with encoding/json (rpcimpl.Result), and
			// WrapResult only wraps that: valid JSON, not checked again.
			field("TrustResults", jen.True())
		}
		if g.appends(m) {
			field("Append", jen.Id("h").Dot(names.append(m)))
		}
		switch m.Tool.Task {
		case "optional":
			field("Task", jen.Qual(model.MCPServerPath, "TaskOptional"))
		case "required":
			field("Task", jen.Qual(model.MCPServerPath, "TaskRequired"))
		}
		if m.Tool.TaskBegins {
			field("TaskBegins", jen.True())
		}
		v.Line()
	})
}

// annotations renders the hints a //rpcgen:tool directive set, or nil.
func annotations(t *model.Tool) jen.Code {
	hints := []struct {
		field string
		value *bool
	}{
		{"ReadOnlyHint", t.ReadOnly},
		{"DestructiveHint", t.Destructive},
		{"IdempotentHint", t.Idempotent},
		{"OpenWorldHint", t.OpenWorld},
	}
	var set []jen.Code
	for _, h := range hints {
		if h.value != nil {
			set = append(set, jen.Id(h.field).Op(":").Qual(model.MCPPath, "Bool").Call(jen.Lit(*h.value)))
		}
	}
	if len(set) == 0 {
		return nil
	}
	return jen.Op("&").Qual(model.MCPPath, "ToolAnnotations").Values(set...)
}

// mcpClient writes the typed MCP client: it implements the interface by
// calling the service's tools through tools/call.
func (g *emitter) mcpClient(s *model.Service, names *serviceNames) {
	f := g.file
	caller := "ToolCaller"
	f.Line()
	if hasFeatures(s) {
		caller = "FeatureCaller"
		f.Commentf("%s calls the tools, resources, prompts and completions of", names.mcpClient)
		f.Commentf("an MCP server serving %s. It implements %s: tool results are decoded", s.Name, s.Name)
		f.Comment("from the tools' structured content, resources and prompts from what")
		f.Comment("resources/read and prompts/get return. A tool's error result becomes the")
		f.Comment("*runtime.Error the server sent with it, as over JSON-RPC.")
	} else {
		f.Commentf("%s calls the %s tools of an MCP server through tools/call.", names.mcpClient, s.Name)
		f.Commentf("It implements %s: results are decoded from the tools' structured content,", s.Name)
		f.Comment("and a tool's error result becomes the *runtime.Error the server sent with")
		f.Comment("it, as over JSON-RPC.")
	}
	f.Type().Id(names.mcpClient).Struct(jen.Id(names.field).Qual(model.MCPPath, caller))

	f.Line()
	f.Var().Id("_").Add(g.typeExpr(s.Type)).Op("=").Parens(jen.Op("*").Id(names.mcpClient)).Parens(jen.Nil())

	f.Line()
	f.Commentf("New%s returns a %s that calls tools through c, usually an", names.mcpClient, s.Name)
	f.Comment("*mcpclient.Client connected over stdio, HTTP or in process.")
	var ctor []jen.Code
	if safe := retrySafeTools(s, names); len(safe) > 0 {
		// The client may retry these when a call is lost (mcpclient.Options.Retry).
		ctor = append(ctor, jen.Qual(model.MCPPath, "DeclareRetrySafe").Call(append([]jen.Code{jen.Id("c")}, safe...)...))
	}
	ctor = append(ctor, jen.Return(jen.Op("&").Id(names.mcpClient).Values(jen.Id(names.field).Op(":").Id("c"))))
	f.Func().Id("New" + names.mcpClient).Params(jen.Id("c").Qual(model.MCPPath, caller)).Op("*").Id(names.mcpClient).Block(ctor...)
	for _, m := range s.Methods {
		if m.Resource != nil || m.Prompt != nil || m.Completer != nil {
			g.featureClientMethod(s, m, names)
			continue
		}
		g.mcpClientMethod(s, m, names)
	}
}

// retrySafeTools names the service's tools that are read-only or idempotent
// (their hints say so), which a client may call again when a call is lost.
func retrySafeTools(s *model.Service, names *serviceNames) []jen.Code {
	var safe []jen.Code
	for _, m := range s.Methods {
		t := m.Tool
		if t == nil || m.Resource != nil || m.Prompt != nil || m.Completer != nil {
			continue
		}
		if t.ReadOnly != nil && *t.ReadOnly || t.Idempotent != nil && *t.Idempotent {
			safe = append(safe, jen.Id(names.tool(m)))
		}
	}
	return safe
}

func (g *emitter) mcpClientMethod(s *model.Service, m *model.Method, names *serviceNames) {
	sig := g.clientSignature(m)
	recv := jen.Id("c").Op("*").Id(names.mcpClient)
	f := g.file
	f.Line()
	if m.Tool == nil {
		comment(f, methodDoc(m, "is not an MCP tool (//rpcgen:tool skip), so it always fails."))
		f.Func().Params(recv).Id(m.Name).Params(sig.params...).Add(sig.results).Block(
			sig.ret(jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("%s.%s is not exposed as an MCP tool", s.Name, m.Name)))),
		)
		return
	}
	what := fmt.Sprintf("calls the MCP tool %q.", m.Tool.Name)
	if m.Notification {
		what = fmt.Sprintf("calls the MCP tool %q and returns without waiting\nfor it, as %s is a notification.", m.Tool.Name, m.Name)
	}
	comment(f, methodDoc(m, what))
	caller := jen.Id("c").Dot(names.field)
	var body []jen.Code
	switch {
	case m.Stream:
		body = append(body, jen.Return(jen.Qual(model.MCPPath, "CallToolStream").Types(g.typeExpr(m.Result)).Call(sig.ctx, caller, jen.Id(names.tool(m)), sig.wire(names.params(m)))))
	case m.Content != model.ContentNone:
		body = contentCall(m, sig, sig.ctx, caller, jen.Id(names.tool(m)), sig.wire(names.params(m)))
	case m.Notification:
		// Sent and not waited for, as the JSON-RPC client sends a notification.
		body = append(body, jen.Return(jen.Qual(model.MCPPath, "NotifyTool").Call(sig.ctx, caller, jen.Id(names.tool(m)), sig.wire(names.params(m)))))
	case m.Result == nil:
		body = append(body, jen.Return(jen.Qual(model.MCPPath, "CallToolNoResult").Call(sig.ctx, caller, jen.Id(names.tool(m)), sig.wire(names.params(m)))))
	default:
		helper := "CallTool"
		if g.schemas[m].wrapped {
			helper = "CallToolWrapped" // the server wraps a result that is not an object
		}
		if dec := g.results.resultDecoder(s, m); dec != "" {
			body = append(body, jen.Return(jen.Qual(model.MCPPath, helper+"Decoded").Call(sig.ctx, caller, jen.Id(names.tool(m)), sig.wire(names.params(m)), jen.Id(dec))))
			break
		}
		body = append(body, jen.Return(jen.Qual(model.MCPPath, helper).Types(g.typeExpr(m.Result)).Call(sig.ctx, caller, jen.Id(names.tool(m)), sig.wire(names.params(m)))))
	}
	f.Func().Params(recv).Id(m.Name).Params(sig.params...).Add(sig.results).Block(body...)
	if model.HasTaskHandle(m) {
		g.mcpClientStartMethod(m, names, sig)
	}
}

// mcpClientStartMethod emits, for a tool that may run as a task, the typed
// handle's type (an alias of mcp.ToolTask for the method's result) and the
// Start method that calls the tool without following its task.
func (g *emitter) mcpClientStartMethod(m *model.Method, names *serviceNames, sig *signature) {
	f := g.file
	var result jen.Code = jen.Struct()
	helper := "StartToolTask"
	if m.Result != nil {
		result = g.typeExpr(m.Result)
		if g.schemas[m].wrapped {
			helper = "StartToolTaskWrapped"
		}
	}
	task := names.s.Name + m.Name + "Task"
	f.Line()
	f.Commentf("%s is a call of %s.%s running as a task (the MCP Tasks", task, names.s.Name, m.Name)
	f.Commentf("extension), as Start%s returns it: its Result follows the task and", m.Name)
	f.Commentf("returns what %s returns.", m.Name)
	f.Type().Id(task).Op("=").Qual(model.MCPPath, "ToolTask").Types(result)
	f.Line()
	f.Commentf("Start%s calls the MCP tool %q as %s does, but returns a", m.Name, m.Tool.Name, m.Name)
	f.Comment("handle on the task the server creates instead of following it: its ID,")
	f.Comment("status and input requests, Answer, Cancel, and Result, which follows it.")
	f.Comment("A call the server answers at once gives a handle whose Result returns")
	f.Comment("that. The client must declare the Tasks extension (mcp.TasksExtensionID).")
	f.Func().Params(jen.Id("c").Op("*").Id(names.mcpClient)).Id("Start"+m.Name).Params(sig.params...).
		Params(jen.Op("*").Id(task), jen.Error()).
		Block(jen.Return(jen.Qual(model.MCPPath, helper).Types(result).Call(sig.ctx, jen.Id("c").Dot(names.field), jen.Id(names.tool(m)), sig.wire(names.params(m)))))
}

func (n *serviceNames) tool(m *model.Method) string { return n.s.Name + m.Name + "Tool" }
func (n *serviceNames) inputSchema(m *model.Method) string {
	return naming.LowerFirst(n.s.Name) + m.Name + "InputSchema"
}
func (n *serviceNames) outputSchema(m *model.Method) string {
	return naming.LowerFirst(n.s.Name) + m.Name + "OutputSchema"
}

// toolDescription is the tool's description: the method's doc comment,
// which reads well to a model as it is.
func toolDescription(m *model.Method) string {
	desc := strings.TrimSpace(m.Doc)
	if m.Stream {
		// What a host shows is the final result; say what it holds.
		desc += fmt.Sprintf("\n\nThe tool streams its results: each item is reported as progress while it runs, and the result lists them (the first %d of a longer stream, with \"truncated\" set).", mcpStreamResultItems)
	}
	if len(m.Errors) > 0 {
		// A model that knows how a call can fail can avoid it, or explain it.
		desc += "\n\nIt may fail with:"
		for _, e := range m.Errors {
			desc += fmt.Sprintf("\n- %s (code %d): %q", e.Name, e.Code, e.Message)
			if doc := model.OneLine(e.Doc); doc != "" {
				desc += ". " + strings.ReplaceAll(doc, "\n\n", " ")
			}
		}
	}
	return desc
}

// mcpStreamResultItems is mcp.StreamResultItems: the items a stream tool's
// result holds.
const mcpStreamResultItems = 100

// schemaConst is the value of the schema constant name: the schema itself,
// or the constant that already holds the same text. Tools sharing a type
// share its schema, and for large services repeats were most of the file.
func (g *emitter) schemaConst(name string, schema []byte) jen.Code {
	if prev, ok := g.schemaNames[string(schema)]; ok {
		return jen.Id(prev)
	}
	g.schemaNames[string(schema)] = name
	return rawString(schema)
}

// rawString renders s as a raw string literal, which keeps a JSON document
// readable in the generated file, or as a quoted one when s holds a backquote
// or a carriage return (which a raw literal would drop).
func rawString(s []byte) jen.Code {
	if bytes.ContainsAny(s, "`\r") {
		return jen.Lit(string(s))
	}
	return jen.Op("`" + string(s) + "`")
}
