package apidoc

// The TypeScript client's MCP part: for a service whose tools may run as
// tasks (the Tasks extension), a constant per such tool (an MCPTool of the
// runtime: its name, how its result decodes, its declared errors) and a
// <Service>MCPClient class with a blocking call and a start method (the
// task's handle) per tool.

import (
	"slices"
	"strings"
)

// hasTaskTools reports whether s has a tool whose client gets a task handle.
func hasTaskTools(s *apiService) bool {
	return slices.ContainsFunc(s.Methods, func(m *apiMethod) bool { return m.TaskTool != "" })
}

// tsToolConst is the name of the MCPTool constant of m, a method of s.
func tsToolConst(s *apiService, m *apiMethod) string {
	return s.Name + m.GoName + "Tool"
}

// mcpClient writes the MCP part of s: "" when s has no task tools. It
// follows the error classes, which the constants name.
func (r *tsRenderer) mcpClient(s *apiService) string {
	if !hasTaskTools(s) {
		return ""
	}
	var b strings.Builder
	for _, m := range s.Methods {
		if m.TaskTool == "" {
			continue
		}
		result, decode, extra := "void", "() => undefined", ", noResult: true"
		if !m.resultIsNull() {
			result, extra = r.tsType(m.Result, ""), ""
			decode = "(s) => s as " + result
			if m.ToolWrapped {
				decode = "(s) => (s as { result: " + result + " }).result"
			}
		}
		if classes := tsErrorClasses(m); classes != "" {
			extra += ", errors: " + classes
		}
		b.WriteString("\n" + tsDoc("The MCP tool "+tsLiteral(m.TaskTool)+" of "+s.Name+"."+m.GoName+", which may run as a task: its name, how its result decodes and its declared errors. MCPClient.task(tool, taskId) picks up a task of it by its ID.", ""))
		b.WriteString("export const " + tsToolConst(s, m) + ": MCPTool<" + result + "> = { name: " + tsLiteral(m.TaskTool) + ", result: " + decode + extra + " };\n")
	}
	text := s.Name + "MCPClient calls the tools of the " + s.Name + " service that run as tasks of MCP's Tasks extension (io.modelcontextprotocol/tasks), over MCP 2026-07-28. Each method calls its tool and follows the task the server answers with until it ends, answering the task's input requests with the MCPClient's onElicit (and onInput) handler; start<Method> returns the task's handle (MCPToolTask) instead. A task's result and errors are the method's, as over JSON-RPC: a declared error is thrown as its class, a failed task as its RPCError, a cancelled one as an MCPTaskCancelledError."
	b.WriteString("\n" + tsDoc(text, ""))
	b.WriteString("export class " + s.Name + "MCPClient {\n")
	b.WriteString("  readonly #mcp: MCPClient;\n\n")
	b.WriteString(tsDoc("Calls the server at a URL (its MCP endpoint, over Streamable HTTP), through a Transport, or through an MCPClient that other clients may share (and that picks up a task by its ID: MCPClient.task).", "  "))
	b.WriteString("  constructor(target: string | Transport | MCPClient, options?: MCPClientOptions) {\n")
	b.WriteString("    this.#mcp = target instanceof MCPClient ? target : new MCPClient(target, options);\n  }\n")
	for _, m := range s.Methods {
		if m.TaskTool != "" {
			b.WriteString(r.mcpMethods(s, m))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// mcpMethods writes the blocking call of m's tool and its start method.
func (r *tsRenderer) mcpMethods(s *apiService, m *apiMethod) string {
	args, params := r.methodArgs(m)
	if params == "" {
		params = "{}"
	}
	args = append(args, "options?: CallOptions")
	result := "void"
	if !m.resultIsNull() {
		result = r.tsType(m.Result, "  ")
	}
	name := tsMethodName(m.GoName)
	tool := tsToolConst(s, m)
	var tags []string
	names := tsParamNames(m)
	for i, p := range m.Params {
		if p.GoName != "" && p.Description != "" {
			tags = append(tags, "@param "+names[i]+" "+p.Description)
		}
	}
	doc := func(lines ...string) string {
		if len(tags) > 0 {
			lines = append(lines, strings.Join(tags, "\n"))
		}
		return tsDoc(strings.Join(lines, "\n\n"), "  ")
	}
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(doc(m.Description, "It calls the MCP tool "+tsLiteral(m.TaskTool)+" and follows its task until it ends (options.signal cancels the task)."))
	b.WriteString("  async " + name + "(" + strings.Join(args, ", ") + "): Promise<" + result + "> {\n")
	if result == "void" {
		b.WriteString("    await this.#mcp.callTool(" + tool + ", " + params + ", options);\n  }\n")
	} else {
		b.WriteString("    return this.#mcp.callTool(" + tool + ", " + params + ", options);\n  }\n")
	}
	b.WriteString("\n")
	b.WriteString(doc("Calls the MCP tool " + tsLiteral(m.TaskTool) + " as " + name + " does, but returns the handle of the task the server creates instead of following it: its id, status and input requests, refresh, answer, cancel, and result, which follows it. A call the server answers at once gives a handle with no id whose result returns that."))
	b.WriteString("  async start" + m.GoName + "(" + strings.Join(args, ", ") + "): Promise<MCPToolTask<" + result + ">> {\n")
	b.WriteString("    return this.#mcp.startTool(" + tool + ", " + params + ", options);\n  }\n")
	return b.String()
}
