package apidoc

// The TypeScript client's methods and its declared errors' classes.

import (
	"strconv"
	"strings"
)

// tsMethod writes the client method of m, indented for a class body.
func (r *tsRenderer) method(m *apiMethod) string {
	args, params := r.methodArgs(m)
	return r.methodText(m, args, params)
}

// methodArgs returns the TypeScript params of m's client method, but its
// options, and the expression of the params object it sends from them ("" for
// none).
func (r *tsRenderer) methodArgs(m *apiMethod) (args []string, params string) {
	var members []string
	switch {
	case m.StructParams:
		name := tsName(m.StructArg)
		t := r.tsType(m.ParamsType, "  ")
		if m.NullParams {
			t += " | null" // a nil pointer: the Go client sends null params
		}
		args = append(args, name+": "+t)
		return args, name
	default:
		// A param may be left out ("?") only when every one after it may.
		optionalFrom := len(m.Params)
		for i := len(m.Params) - 1; i >= 0 && !m.Params[i].Required; i-- {
			optionalFrom = i
		}
		names := tsParamNames(m)
		for i, p := range m.Params {
			name := names[i]
			t := r.tsType(p.Schema, "  ")
			switch {
			case i >= optionalFrom:
				args = append(args, name+"?: "+t)
			case !p.Required:
				args = append(args, name+": "+t+" | undefined")
			default:
				args = append(args, name+": "+t)
			}
			if tsKey(p.Name) == name {
				members = append(members, name)
			} else {
				members = append(members, tsKey(p.Name)+": "+name)
			}
		}
	}
	if len(members) > 0 {
		params = "{ " + strings.Join(members, ", ") + " }"
	}
	return args, params
}

// tsMethodText writes the method of m taking args and sending params (a
// TypeScript expression, "" for none).
func (r *tsRenderer) methodText(m *apiMethod, args []string, params string) string {
	var doc, tags []string
	if m.Description != "" {
		doc = append(doc, m.Description)
	}
	names := tsParamNames(m)
	for i, p := range m.Params {
		if p.GoName != "" && p.Description != "" {
			tags = append(tags, "@param "+names[i]+" "+p.Description)
		}
	}
	result, call := "void", "call<unknown>"
	switch {
	case m.Notification:
		call = "notify"
		doc = append(doc, "A notification: the server answers nothing, not even an error.")
	}
	if m.Extension != "" {
		doc = append(doc, "A request of the MCP extension "+m.Extension+": over MCP, the client declares the extension in its capabilities and sends it with its _meta.")
	}
	if m.MCP != nil {
		doc = append(doc, m.MCP.docLines()...)
	}
	switch {
	case m.Notification:
	case !m.resultIsNull():
		result = r.tsType(m.Result, "  ")
		call = "call<" + result + ">"
	}
	if !m.Notification {
		if ret := withNote(m.ResultDoc, formatNote(m.Result)); ret != "" {
			tags = append(tags, "@returns "+strings.ReplaceAll(ret, "\n\n", " "))
		}
	}
	if len(tags) > 0 {
		doc = append(doc, strings.Join(tags, "\n"))
	}
	args = append(args, "options?: CallOptions")
	callArgs := tsLiteral(m.Name) + ", "
	if params != "" {
		callArgs += params
	} else {
		callArgs += "undefined"
	}
	callArgs += ", options"
	var b strings.Builder
	if classes := tsErrorClasses(m); classes != "" && call != "notify" {
		callArgs += ", " + classes
		var throws []string
		for _, e := range m.Errors {
			if e.Class != "" {
				throws = append(throws, "@throws "+e.Class+" "+e.Message+" (code "+strconv.FormatInt(e.Code, 10)+")")
			}
		}
		doc = append(doc, strings.Join(throws, "\n"))
	}
	if m.Stream != nil {
		// A stream method: an async iterable of its items (JSONRPCClient.stream).
		item := r.tsType(m.Stream, "  ")
		doc = append(doc[:len(doc):len(doc)], "A stream: iterate over it with for await; each turn takes one item, and breaking out of the loop ends the call on the server.")
		b.WriteString(tsDoc(strings.Join(doc, "\n\n"), "  "))
		b.WriteString("  " + tsMethodName(m.GoName) + "(" + strings.Join(args, ", ") + "): AsyncGenerator<" + item + ", void, undefined> {\n")
		b.WriteString("    return this.#rpc.stream<" + item + ">(" + callArgs + ");\n  }\n")
		return b.String()
	}
	b.WriteString(tsDoc(strings.Join(doc, "\n\n"), "  "))
	b.WriteString("  async " + tsMethodName(m.GoName) + "(" + strings.Join(args, ", ") + "): Promise<" + result + "> {\n")
	if result == "void" && call != "notify" {
		b.WriteString("    await this.#rpc." + call + "(" + callArgs + ");\n")
	} else {
		b.WriteString("    return this.#rpc." + call + "(" + callArgs + ");\n")
	}
	b.WriteString("  }\n")
	return b.String()
}

// tsErrorClasses is the ErrorClasses literal of m's declared errors, "" when
// it declares none: { 1001: DivisionByZeroError }.
func tsErrorClasses(m *apiMethod) string {
	var entries []string
	for _, e := range m.Errors {
		if e.Class != "" {
			key := strconv.FormatInt(e.Code, 10)
			if e.Code < 0 {
				key = "[" + key + "]" // a negative number is a key only when computed
			}
			entries = append(entries, key+": "+e.Class)
		}
	}
	if len(entries) == 0 {
		return ""
	}
	return "{ " + strings.Join(entries, ", ") + " }"
}

// errorClass declares the class a declared error is thrown as: an RPCError
// whose data is typed, and whose code is its static code.
func (r *tsRenderer) errorClass(e apiError) string {
	var b strings.Builder
	doc := e.Doc
	doc = withNote(doc, "Code "+strconv.FormatInt(e.Code, 10)+", "+tsLiteral(e.Message)+": thrown by the methods that declare it.")
	b.WriteString(tsDoc(doc, ""))
	b.WriteString("export class " + e.Class + " extends RPCError {\n")
	b.WriteString("  static readonly code = " + strconv.FormatInt(e.Code, 10) + ";\n")
	if e.Data != nil {
		b.WriteString("  declare readonly data: " + r.tsType(e.Data, "  ") + ";\n")
	}
	b.WriteString("\n  constructor(message: string, data?: unknown) {\n")
	b.WriteString("    super(" + strconv.FormatInt(e.Code, 10) + ", message, data);\n")
	b.WriteString("    this.name = " + tsLiteral(e.Class) + ";\n  }\n}\n")
	return b.String()
}

// tsParamNames are the TypeScript names of m's params, unique even when
// their Go names differ only in the case of their first letter (x and X).
func tsParamNames(m *apiMethod) []string {
	names := make([]string, len(m.Params))
	used := map[string]bool{}
	for i, p := range m.Params {
		base := tsName(p.GoName)
		name := base
		for n := 2; used[name]; n++ {
			name = base + strconv.Itoa(n)
		}
		used[name] = true
		names[i] = name
	}
	return names
}
