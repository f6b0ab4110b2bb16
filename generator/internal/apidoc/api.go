// Package apidoc builds the API model of the services (each method's params
// and result as JSON Schemas, the named types they share as components)
// and renders it through the templates in templates/ as an OpenRPC
// document, a TypeScript client and a Markdown reference.
package apidoc

import (
	"go/doc"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// The API model is what the outputs that are not Go (the OpenRPC document,
// the TypeScript client, the Markdown reference) render: each method's
// params and result as JSON Schemas, with the named types they share pulled
// out as components and referred to by "$ref". It is built from the same
// model and schema builder as the Go file, so the three cannot drift from it.

// apiDoc describes the services of one generation.
type apiDoc struct {
	Title       string // the service names, e.g. "Calculator"
	Description string // the services' doc comments
	Version     string // the API's version (apiOptions.APIVersion)
	// OpenRPC is the OpenRPC version the document states (OpenRPCVersion
	// or OpenRPCVersionLegacy).
	OpenRPC string
	// Servers, License, ... are Options' settings of the same names.
	Servers                                                []string
	License, LicenseURL, Contact, ContactEmail, ContactURL string
	Services                                               []*apiService
	Components                                             []*apiComponent // in order of first use
	// TSComponents adds to Components the structs that are the params of
	// StructParams methods: the TypeScript client's methods take them whole,
	// where the other outputs list their members as the params.
	TSComponents []*apiComponent
	// TSNamed are the parts of the components' schemas that the TypeScript
	// client declares as types of their own, named by their titles: the
	// variants of an MCP content block, say (schema.MCPTitles).
	TSNamed  []*apiComponent
	Discover bool // the dispatcher answers rpc.discover
}

// apiService is one interface.
type apiService struct {
	Name        string // Go interface name
	Description string
	Methods     []*apiMethod
	// Extension is the identifier of the MCP extension the service is
	// (//rpcgen:extension), "" for none.
	Extension string
}

// apiMethod is one JSON-RPC method.
type apiMethod struct {
	GoName       string // e.g. "Add"
	Name         string // JSON-RPC name, e.g. "calculator.add"
	Summary      string // the first sentence of Description
	Description  string
	Params       []*apiParam
	StructParams bool // the params are one struct's members, sent by name only
	// ParamsType is the schema of the params object of a StructParams
	// method, usually a "$ref" to the struct's component.
	ParamsType *jsonschema.Schema
	StructArg  string // the Go name of a StructParams method's param
	// NullParams says that a StructParams method's param is a pointer,
	// whose nil the Go client sends as null params.
	NullParams   bool
	Notification bool
	// Result is the schema of the JSON-RPC result; nil for a notification.
	// A method that returns only an error answers null.
	Result *jsonschema.Schema
	// Stream is the schema of a stream method's items (then Result is their
	// array, what a client that reads no stream gets); nil for other methods.
	Stream *jsonschema.Schema
	// Idempotent says a client may retry a call lost with its connection.
	Idempotent bool
	// Extension is the identifier of the MCP extension whose request the
	// method is (//rpcgen:extension), "" for a plain JSON-RPC method.
	Extension string
	// ResultDescription describes the result: ResultDoc, else the result
	// type's description; "" for none.
	ResultDescription string
	// ResultDoc is the doc comment's "result:" line, "" for none.
	ResultDoc string
	// Errors are the JSON-RPC errors the method may answer with: its
	// declared ones, then those the generated dispatcher and the runtime
	// answer (the implementation may add codes it does not declare).
	Errors []apiError
	// Examples are the method's explicit examples.
	Examples []apiExample
	// MCP is the method's MCP descriptor where it says more than the
	// schemas (title, icons, _meta, App view); nil otherwise.
	MCP *apiDescriptor
	// TaskTool is the name of the method's MCP tool when it may run as a
	// task and its client gets a task handle (model.HasTaskHandle): the
	// TypeScript client's <Service>MCPClient calls it. "" otherwise.
	TaskTool string
	// ToolWrapped says the tool's structured result is {"result": R}, R not
	// being an object.
	ToolWrapped bool
}

// apiParam is one member of a method's params object.
type apiParam struct {
	Name        string // JSON key
	GoName      string // Go param name ("" for a struct's member)
	Description string
	Required    bool
	Schema      *jsonschema.Schema
}

// apiComponent is a named schema the methods' schemas refer to.
type apiComponent struct {
	Name   string
	Schema *jsonschema.Schema
}

// apiError is an error a method may answer with.
type apiError struct {
	Key     string // name under the OpenRPC document's components/errors
	Code    int64
	Message string
	Doc     string
	// Data is the schema of a declared error's data, nil for none; Class
	// is a declared error's TypeScript class, "" for the others.
	Data     *jsonschema.Schema
	Class    string
	declared *model.DeclaredError
}

// The errors every method's dispatcher may answer with.
var (
	errInvalidParams = apiError{Key: "InvalidParams", Code: -32602, Message: "Invalid params",
		Doc: "The params do not fit the method: a missing, unknown or mistyped member, or a value out of bounds. The message names the member."}
	errServer = apiError{Key: "ServerError", Code: -32000, Message: "Server error",
		Doc: "The implementation failed with an error it does not declare; the message is the error's text."}
	errInternal = apiError{Key: "InternalError", Code: -32603, Message: "Internal error",
		Doc: "The implementation panicked, or its result could not be encoded; the server logs why."}
	// errResourceNotFound is what a resource method answers for a URI with
	// no resource: mcpserver.ResourceNotFound, as docs/mcp.md tells its
	// implementation to return.
	errResourceNotFound = apiError{Key: "ResourceNotFound", Code: -32002, Message: "Resource not found",
		Doc: "There is no resource at the URI (the implementation returned mcpserver.ResourceNotFound); the data is {\"uri\": URI}. Over MCP 2026-07-28 it is -32602."}
)

// componentRef is the "$ref" of the component named name.
func componentRef(name string) string { return "#/components/schemas/" + name }

// Build builds the API model of services. It uses a schema builder of its
// own, so that asking for the non-Go outputs never changes the Go file (the
// names under "$defs" depend on the order types are met); problems were
// already reported by the Go file's builder. docs, when not nil, is the Go
// file's doc index, shared so that files are read (and logged) once.
func Build(pkg *packages.Package, docs *schema.DocIndex, services []*model.Service, cfg Options) *apiDoc {
	sg := schema.NewBuilder(pkg, nil)
	if docs != nil {
		sg.Docs = docs
	}
	if len(services) > 0 {
		sg.TypeSchemas = services[0].TypeSchemas
	}
	doc := &apiDoc{Version: cfg.APIVersion, OpenRPC: cfg.OpenRPCVersion, Discover: cfg.OpenRPC != "" && !cfg.NoDiscover,
		Servers: cfg.Servers, License: cfg.License, LicenseURL: cfg.LicenseURL,
		Contact: cfg.Contact, ContactEmail: cfg.ContactEmail, ContactURL: cfg.ContactURL}
	if doc.Version == "" {
		doc.Version = "0.0.0"
	}
	if doc.OpenRPC == "" {
		doc.OpenRPC = OpenRPCVersion
	}
	var titles, descs []string
	for _, s := range services {
		titles = append(titles, s.Name)
		if s.Doc != "" {
			descs = append(descs, model.OneLine(s.Doc))
		}
	}
	doc.Title = strings.Join(titles, ", ")
	doc.Description = strings.Join(descs, "\n\n")

	c := newComponents(sg)
	// The TypeScript client declares these names itself.
	c.reserve(tsRuntimeNames...)
	c.reserve(tsLibNames...)
	c.reserve(slices.Sorted(maps.Keys(schema.MCPTitles))...)
	for _, s := range services {
		c.reserve(s.Name + "Client")
		for _, m := range s.Methods {
			if model.HasTaskHandle(m) { // the MCP client and the tool's constant
				c.reserve(s.Name+"MCPClient", s.Name+m.Name+"Tool")
			}
		}
	}
	for _, s := range services {
		for _, m := range s.Methods {
			for _, p := range m.Params {
				c.collect(p.Type, false)
			}
			if m.Result != nil {
				c.collect(m.Result, true)
			}
		}
	}
	errs := newDeclaredErrors(sg, c)
	errs.collect(services)
	c.index()
	errs.build()

	for _, s := range services {
		as := &apiService{Name: s.Name, Description: model.OneLine(s.Doc)}
		if s.Extension != nil {
			as.Extension = s.Extension.ID
		}
		for _, m := range s.Methods {
			am := apiMethodOf(sg, c, m)
			if s.Extension != nil {
				am.Extension = s.Extension.ID
			}
			if !m.Notification {
				am.Errors = errs.of(m)
			}
			am.Examples = examplesOf(m, am, errs)
			as.Methods = append(as.Methods, am)
		}
		doc.Services = append(doc.Services, as)
	}
	doc.Components = c.used(false)
	doc.TSComponents = c.used(true)
	doc.TSNamed = tsNamedParts(doc.TSComponents)
	return doc
}

func apiMethodOf(sg *schema.Builder, c *components, m *model.Method) *apiMethod {
	// The document has components of its own: build the schemas without the
	// //rpcgen:schema options ("$defs" for every struct, "$schema" at roots),
	// which are for the schemas that stand alone.
	plain := *m
	plain.Schema = model.SchemaOptions{}
	m = &plain

	am := &apiMethod{
		GoName:       m.Name,
		Name:         m.RPCName,
		Description:  model.OneLine(m.Doc),
		Summary:      summary(m.Doc),
		StructParams: m.StructParams,
		Notification: m.Notification,
		MCP:          descriptorOf(m),
	}
	if model.HasTaskHandle(m) {
		am.TaskTool = m.Tool.Name
		_, am.ToolWrapped = sg.OutputSchema(m)
	}
	if m.StructParams {
		am.StructArg = m.Params[0].Name
		_, am.NullParams = types.Unalias(m.Params[0].Type).(*types.Pointer)
		if am.ParamsType = c.paramsRef(m.Params[0].Type); am.ParamsType == nil {
			am.ParamsType = c.refs(schema.Clone(sg.InputSchema(m)), false)
		}
	}
	// refs changes the schemas below the root, which the builder shares.
	in := schema.Clone(sg.InputSchema(m))
	if in.Properties != nil {
		goNames := map[string]string{}
		if !m.StructParams {
			for _, p := range m.Params {
				goNames[p.JSONKey] = p.Name
			}
		}
		for p := in.Properties.Oldest(); p != nil; p = p.Next() {
			s := p.Value
			desc := s.Description
			s.Description = ""
			am.Params = append(am.Params, &apiParam{
				Name:        p.Key,
				GoName:      goNames[p.Key],
				Description: desc,
				Required:    slices.Contains(in.Required, p.Key),
				Schema:      c.refs(s, false),
			})
		}
	}
	if !m.Notification {
		am.Idempotent = m.Idempotent
		if m.Result != nil {
			r := schema.Clone(sg.ResultSchema(m))
			r.Definitions = nil // they are components now
			am.ResultDoc = model.OneLine(m.ResultDoc)
			am.ResultDescription = am.ResultDoc
			if am.ResultDescription == "" {
				am.ResultDescription = firstParagraph(r.Description)
			}
			am.Result = c.refs(r, true)
			if m.Stream {
				am.Stream = am.Result
				am.Result = &jsonschema.Schema{Type: "array", Items: am.Stream,
					Description: "The items, as one array, for a client that reads no stream (see x-rpcgen-stream)"}
			}
		} else {
			am.Result = &jsonschema.Schema{Type: "null"}
		}
	}
	return am
}

// resultIsNull reports whether m answers only null: its Go method returns
// only an error.
func (m *apiMethod) resultIsNull() bool {
	return m.Result != nil && m.Result.Type == "null"
}

// tsNamedParts finds the subschemas of comps whose titles are in
// schema.MCPTitles, each title once, in the order met.
func tsNamedParts(comps []*apiComponent) []*apiComponent {
	var out []*apiComponent
	seen := map[string]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if schema.MCPTitles[s.Title] && !seen[s.Title] {
			seen[s.Title] = true
			out = append(out, &apiComponent{Name: s.Title, Schema: s})
		}
		for _, l := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf, s.AllOf, s.PrefixItems} {
			for _, x := range l {
				walk(x)
			}
		}
		walk(s.Items)
		walk(s.AdditionalProperties)
		if s.Properties != nil {
			for p := s.Properties.Oldest(); p != nil; p = p.Next() {
				walk(p.Value)
			}
		}
	}
	for _, c := range comps {
		walk(c.Schema)
	}
	return out
}

// summary is the first sentence of a doc comment, as go/doc finds it.
func summary(text string) string {
	return new(doc.Package).Synopsis(text)
}

// firstParagraph is text up to its first blank line.
func firstParagraph(text string) string {
	p, _, _ := strings.Cut(text, "\n\n")
	return p
}
