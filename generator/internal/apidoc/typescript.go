package apidoc

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/naming"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// renderTypeScript writes a TypeScript module (templates/client.ts.tmpl):
// a type for every component, and per service a client class with one
// method per JSON-RPC method, which calls through the runtime the module
// imports by the specifier runtime (and re-exports). Types come from the
// schemas: a member that is not required is optional, an enum is a union of
// literals, a nullable result member is "T | null", and a date-time is a
// string, documented so.
func renderTypeScript(api *apiDoc, runtime string) ([]byte, error) {
	r := &tsRenderer{named: map[string]bool{}}
	for _, n := range api.TSNamed {
		r.named[n.Name] = true
	}
	funcs := template.FuncMap{
		"doc":            tsDoc,
		"decl":           r.decl,
		"method":         r.method,
		"clientDoc":      tsClientDoc,
		"literal":        tsLiteral,
		"runtime":        func() string { return tsLiteral(runtime) },
		"runtimeImports": func() string { return tsRuntimeImports(api) },
		"errorClass":     r.errorClass,
		"errorList":      apiErrors,
		"mcpClient":      r.mcpClient,
	}
	return render("client.ts.tmpl", funcs, api)
}

// tsRenderer writes TypeScript types. named are the titles of the schemas
// declared as types of their own (apiDoc.TSNamed), which a schema with that
// title is written as.
type tsRenderer struct {
	named map[string]bool
}

// tsDoc renders text as a JSDoc comment indented by indent, "" for no text.
func tsDoc(text, indent string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	text = strings.ReplaceAll(text, "*/", "*\\/")
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for para := range strings.SplitSeq(text, "\n") {
		if para == "" {
			b.WriteString(indent + " *\n")
			continue
		}
		for _, line := range wrapWords(para, 80-len(indent)-3) {
			b.WriteString(indent + " * " + line + "\n")
		}
	}
	b.WriteString(indent + " */\n")
	return b.String()
}

// wrapWords breaks text into lines of at most width bytes, at spaces; a
// word longer than width gets a line of its own.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// tsDecl declares the component c: an interface for an object with
// members, a type alias for anything else.
func (r *tsRenderer) decl(c *apiComponent) string {
	s := c.Schema
	doc := tsDoc(withNote(s.Description, formatNote(s)), "")
	if s.Type == "object" && s.Properties != nil && s.Properties.Len() > 0 {
		return doc + "export interface " + c.Name + " " + r.tsObject(s, "") + "\n"
	}
	body := *s
	body.Title = "" // a named schema's own declaration spells it out
	return doc + "export type " + c.Name + " = " + r.tsType(&body, "") + ";\n"
}

// tsType is the TypeScript type of a value s describes; indent is the
// indentation of the line it starts on, for object members.
func (r *tsRenderer) tsType(s *jsonschema.Schema, indent string) string {
	switch {
	case s == nil || s == jsonschema.TrueSchema:
		return "unknown"
	case s == jsonschema.FalseSchema:
		return "never"
	case s.Ref != "":
		return strings.TrimPrefix(s.Ref, "#/components/schemas/")
	case s.Title != "" && r.named[s.Title]:
		return s.Title
	case len(s.AnyOf) > 0:
		return r.tsUnion(s.AnyOf, indent)
	case len(s.OneOf) > 0:
		return r.tsUnion(s.OneOf, indent)
	case len(s.Enum) > 0:
		lits := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			lits[i] = tsLiteral(v)
		}
		return strings.Join(lits, " | ")
	case s.Const != nil:
		return tsLiteral(s.Const)
	}
	switch s.Type {
	case "string":
		return "string"
	case "integer", "number":
		return "number"
	case "boolean":
		return "boolean"
	case "null":
		return "null"
	case "array":
		if len(s.PrefixItems) > 0 {
			elems := make([]string, len(s.PrefixItems))
			for i, x := range s.PrefixItems {
				elems[i] = r.tsType(x, indent)
			}
			return "[" + strings.Join(elems, ", ") + "]"
		}
		elem := r.tsType(s.Items, indent)
		if topLevelUnion(elem) {
			elem = "(" + elem + ")"
		}
		return elem + "[]"
	case "object":
		return r.tsObject(s, indent)
	}
	return "unknown"
}

// topLevelUnion reports whether the TypeScript type t is a union at its
// top level ("A | null", not "{ a: A | null }"), which needs parentheses
// before "[]".
func topLevelUnion(t string) bool {
	depth := 0
	inString := false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '(' || c == '[' || c == '<':
			depth++
		case c == '}' || c == ')' || c == ']' || c == '>':
			depth--
		case c == '|' && depth == 0:
			return true
		}
	}
	return false
}

func (r *tsRenderer) tsUnion(list []*jsonschema.Schema, indent string) string {
	var parts []string
	for _, x := range list {
		if t := r.tsType(x, indent); !slices.Contains(parts, t) {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " | ")
}

// tsObject is an object type: its members, one a line, or an index
// signature for a map.
func (r *tsRenderer) tsObject(s *jsonschema.Schema, indent string) string {
	extra := s.AdditionalProperties
	if s.Properties == nil || s.Properties.Len() == 0 {
		switch {
		case extra == jsonschema.FalseSchema:
			return "Record<string, never>"
		case extra == nil:
			return "{ [key: string]: unknown }"
		}
		return "{ [key: string]: " + r.tsType(extra, indent) + " }"
	}
	inner := indent + "  "
	var b strings.Builder
	b.WriteString("{\n")
	for p := s.Properties.Oldest(); p != nil; p = p.Next() {
		b.WriteString(tsDoc(withNote(p.Value.Description, formatNote(p.Value)), inner))
		b.WriteString(inner + tsKey(p.Key))
		if !slices.Contains(s.Required, p.Key) {
			b.WriteByte('?')
		}
		b.WriteString(": " + r.tsType(p.Value, inner) + ";\n")
	}
	if extra != nil && extra != jsonschema.FalseSchema {
		b.WriteString(inner + "[key: string]: unknown;\n")
	}
	b.WriteString(indent + "}")
	return b.String()
}

// formatNote says how a string with a format or an encoding is written,
// looking through a nullable's anyOf.
func formatNote(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	for _, x := range s.AnyOf {
		if n := formatNote(x); n != "" {
			return n
		}
	}
	if s.Type == "array" && s.Items != nil {
		if n := formatNote(s.Items); n != "" {
			return "Each element: " + lowerFirstByte(n)
		}
	}
	switch {
	case s.Format == "date-time":
		return `A date and time as an RFC 3339 string, e.g. "2026-01-02T15:04:05Z"; new Date(value) reads it.`
	case s.Format == "date":
		return `A date as an RFC 3339 full-date string, e.g. "2026-01-02".`
	case s.ContentEncoding == "base64":
		return "Bytes as a base64 string."
	case s.Type == "string" && (s.Pattern == schema.IntPattern || s.Pattern == schema.UintPattern):
		return "An integer as a decimal string, so that values beyond 2^53 keep every digit; BigInt(value) reads it."
	}
	return ""
}

func lowerFirstByte(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func withNote(desc, note string) string {
	switch {
	case note == "":
		return desc
	case desc == "":
		return note
	}
	return desc + "\n\n" + note
}

var tsIdentRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// tsKey writes an object member's name, quoted unless it is an identifier.
func tsKey(k string) string {
	if tsIdentRE.MatchString(k) {
		return k
	}
	return tsLiteral(k)
}

func tsLiteral(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "unknown"
	}
	return string(b)
}

// tsLibNames are the global types of TypeScript's ES2022 library (the
// one the clients compile against): a component of one of these names
// would shadow it in the client, which uses some of them (Omit, Record,
// Promise, ...).
var tsLibNames = []string{
	"AggregateError", "Array", "ArrayBuffer", "ArrayBufferLike", "ArrayBufferView", "ArrayLike",
	"AsyncGenerator", "AsyncGeneratorFunction", "AsyncIterable", "AsyncIterableIterator", "AsyncIterator",
	"Atomics", "Awaited", "BigInt", "BigInt64Array", "BigUint64Array", "Boolean", "Capitalize",
	"ConcatArray", "ConstructorParameters", "DataView", "Date", "Error", "ErrorOptions", "EvalError",
	"Exclude", "Extract", "FinalizationRegistry", "Float32Array", "Float64Array", "Function",
	"Generator", "GeneratorFunction", "IArguments", "InstanceType", "Int16Array", "Int32Array",
	"Int8Array", "Intl", "Iterable", "IterableIterator", "Iterator", "IteratorResult", "JSON",
	"Lowercase", "Map", "Math", "NoInfer", "NonNullable", "Number", "Object", "Omit",
	"OmitThisParameter", "Parameters", "Partial", "Pick", "Promise", "PromiseConstructorLike",
	"PromiseLike", "PropertyDescriptor", "PropertyKey", "Proxy", "RangeError", "Readonly",
	"ReadonlyArray", "ReadonlyMap", "ReadonlySet", "Record", "ReferenceError", "Reflect", "RegExp",
	"Required", "ReturnType", "Set", "SharedArrayBuffer", "String", "Symbol", "SyntaxError",
	"TemplateStringsArray", "ThisParameterType", "ThisType", "TypeError", "URIError", "Uint16Array",
	"Uint32Array", "Uint8Array", "Uint8ClampedArray", "Uncapitalize", "Uppercase", "WeakMap",
	"WeakRef", "WeakSet",
}

// tsReserved are the words a parameter may not be named in TypeScript's
// strict mode.
var tsReserved = map[string]bool{
	"arguments": true, "await": true, "break": true, "case": true, "catch": true, "class": true,
	"const": true, "continue": true, "debugger": true, "default": true, "delete": true, "do": true,
	"else": true, "enum": true, "eval": true, "export": true, "extends": true, "false": true,
	"finally": true, "for": true, "function": true, "if": true, "implements": true, "import": true,
	"in": true, "instanceof": true, "interface": true, "let": true, "new": true, "null": true,
	"package": true, "private": true, "protected": true, "public": true, "return": true,
	"static": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
	"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true, "yield": true,
	// The name of the generated methods' own last parameter.
	"options": true,
}

// tsName makes a Go param name usable as a TypeScript parameter name.
func tsName(name string) string {
	name = naming.LowerCamel(name)
	if tsReserved[name] {
		return name + "_"
	}
	return name
}

// tsMethodName is the client method name of a Go method: lowerCamel, as a
// class member may be named but "constructor".
func tsMethodName(name string) string {
	name = naming.LowerCamel(name)
	if name == "constructor" {
		return name + "_"
	}
	return name
}

// tsClientDoc is a service client class's doc comment.
func tsClientDoc(s *apiService) string {
	text := s.Name + "Client calls the methods of the " + s.Name + " service."
	if s.Description != "" {
		text += "\n\n" + s.Description
	}
	return tsDoc(text, "")
}
