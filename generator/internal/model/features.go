package model

import (
	"encoding/json"
	"go/token"
	"go/types"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// CompletersOrNil is the completers linked to p, nil for a nil prompt.
func (p *Prompt) CompletersOrNil() []*Method {
	if p == nil {
		return nil
	}
	return p.Completers
}

// MCP features other than tools: a method marked //rpcgen:resource is read
// as a resource (or, when its URI holds {var} expressions, a resource
// template), one marked //rpcgen:prompt builds a prompt's messages, and one
// marked //rpcgen:complete suggests values for an argument of a prompt or a
// variable of a template. Such a method is not a tool, but it stays a
// JSON-RPC method like any other.

// Resource is a method's MCP resource or resource template, from
// //rpcgen:resource.
type Resource struct {
	URI      string   // the resource's URI, or the template when Vars is not nil
	Vars     []string // the template's variables in order; nil for a fixed resource
	Name     string   // e.g. "static_text"
	Title    string   // display name, "" when not given
	MIMEType string   // from mime=, "" when not given
	Result   resourceResult
	// Completers are the //rpcgen:complete methods for the template's
	// variables, in source order.
	Completers []*Method
	// Icons and Meta are as for Tool.
	Icons  []mcp.Icon
	Meta   json.RawMessage
	uriPos token.Position
}

// Template reports whether the resource is a template.
func (r *Resource) Template() bool { return r.Vars != nil }

// resourceResult says how a resource method's result becomes contents.
type resourceResult int

const (
	ResourceText         resourceResult = iota // a string type: text
	ResourceBlob                               // []byte: a base64 blob
	ResourceContents                           // mcp.ResourceContents as it is
	ResourceContentsList                       // []mcp.ResourceContents as they are
	ResourceJSON                               // anything else: its JSON as text
)

// DefaultMIME is the MIME type a resource's descriptor and contents state
// when mime= is not given; "" when the result carries its own.
func (r *Resource) DefaultMIME() string {
	if r.MIMEType != "" {
		return r.MIMEType
	}
	switch r.Result {
	case ResourceText:
		return "text/plain"
	case ResourceBlob:
		return "application/octet-stream"
	case ResourceJSON:
		return "application/json"
	}
	return ""
}

// Prompt is a method's MCP prompt, from //rpcgen:prompt.
type Prompt struct {
	Name   string // e.g. "summarize"
	Title  string // display name, "" when not given
	Args   []*PromptArg
	Result promptResult
	// Completers are the //rpcgen:complete methods for the prompt's
	// arguments, in source order.
	Completers []*Method
	// Icons and Meta are as for Tool.
	Icons   []mcp.Icon
	Meta    json.RawMessage
	namePos token.Position
}

// PromptArg is one argument of a prompt: a string param (required) or a
// *string one (optional), or the same with a named string type.
type PromptArg struct {
	Param    *Param
	Required bool
}

// promptResult says how a prompt method's result becomes a prompts/get result.
type promptResult int

const (
	PromptText     promptResult = iota // a string type: one "user" text message
	PromptMessage                      // mcp.PromptMessage: one message
	PromptMessages                     // []mcp.PromptMessage
	PromptFull                         // *mcp.GetPromptResult as it is
)

// Completer is a method's //rpcgen:complete: it completes Arg of the prompt
// named Prompt, or the variable Arg of the resource template Template.
type Completer struct {
	Prompt, Template string
	Arg              string
	HasContext       bool    // takes the resolved arguments as a map[string]string
	Full             bool    // returns *mcp.Completion rather than []string
	Target           *Method // the prompt or template method, once linked
	targetPos        token.Position
	argPos           token.Position
}

// featureDirectives are the directives that make a method an MCP feature.
var featureDirectives = []string{"resource", "prompt", "complete"}

// buildFeature reads a method's //rpcgen:resource, //rpcgen:prompt or
// //rpcgen:complete directive, if it has one; such a method is not a tool.
func buildFeature(m *Method, dirs map[string]*Directive, errs *diag.Collector, qual types.Qualifier) {
	var found []*Directive
	for _, name := range featureDirectives {
		if d := dirs[name]; d != nil {
			found = append(found, d)
		}
	}
	if len(found) == 0 {
		return
	}
	d := found[0]
	if len(found) > 1 {
		errs.At(found[1].Pos, "method %s: //rpcgen:%s and //rpcgen:%s cannot be combined; a method is one MCP feature", m.Name, d.Name, found[1].Name)
		return
	}
	if t := dirs["tool"]; t != nil {
		if skip := t.flag("skip"); skip == nil || !*skip {
			errs.At(t.Pos, "method %s: a //rpcgen:%s method is not an MCP tool; remove //rpcgen:tool", m.Name, d.Name)
		}
	}
	m.Tool = nil
	if m.Notification {
		errs.At(d.Pos, "method %s: a notification cannot be an MCP %s, which needs a result", m.Name, d.Name)
		return
	}
	switch d.Name {
	case "resource":
		m.Resource = buildResource(m, d, errs, qual)
	case "prompt":
		m.Prompt = buildPrompt(m, d, errs, qual)
	case "complete":
		m.Completer = buildCompleter(m, d, errs)
	}
}

func buildResource(m *Method, d *Directive, errs *diag.Collector, qual types.Qualifier) *Resource {
	uri, upos, ok := d.value("uri")
	if !ok {
		errs.At(d.Pos, "method %s: //rpcgen:resource needs uri=...", m.Name)
		return nil
	}
	vars, err := parseURITemplate(uri)
	if err != nil {
		errs.At(upos, "method %s: uri %q: %v", m.Name, uri, err)
		return nil
	}
	// The runtime's own check, so that what is generated never panics in
	// Server.AddResources or AddResourceTemplates.
	if _, err := mcpserver.ParseURITemplate(uri); err != nil {
		errs.At(upos, "method %s: %v", m.Name, err)
		return nil
	}
	r := &Resource{URI: uri, Vars: vars, Name: naming.SnakeCase(m.Name), uriPos: errs.Position(upos)}
	if v, pos, ok := d.value("name"); ok {
		if v == "" {
			errs.At(pos, "method %s: resource name must not be empty", m.Name)
		}
		r.Name = v
	}
	r.Title, _, _ = d.value("title")
	if v, pos, ok := d.value("mime"); ok {
		if typ, sub, ok := strings.Cut(v, "/"); !ok || typ == "" || sub == "" || strings.ContainsFunc(v, isSpaceOrControl) {
			errs.At(pos, "method %s: mime %q is not a MIME type (type/subtype)", m.Name, v)
		}
		r.MIMEType = v
	}

	if vars == nil {
		for _, p := range m.Params {
			errs.AtPosition(p.Pos, "method %s: parameter %s: a fixed resource takes no parameters besides the context; put {%s} in the URI to make it a template", m.Name, p.Name, p.Name)
		}
	} else {
		byName := map[string]*Param{}
		for _, p := range m.Params {
			byName[p.Name] = p
			switch {
			case !containsString(vars, p.Name):
				errs.AtPosition(p.Pos, "method %s: parameter %s is not a variable of the template %q", m.Name, p.Name, uri)
			case !isTemplateVarType(p.Type):
				errs.AtPosition(p.Pos, "method %s: parameter %s: a template variable is a string or an integer, not %s", m.Name, p.Name, types.TypeString(p.Type, qual))
			}
		}
		for _, v := range vars {
			if byName[v] == nil {
				errs.At(upos, "method %s: template variable {%s} has no parameter; add %s string", m.Name, v, v)
			}
		}
	}

	if m.Result == nil {
		errs.AtPosition(m.Pos, "method %s: a resource returns its contents: (T, error) with T a string type, []byte, mcp.ResourceContents, []mcp.ResourceContents or a JSON-encodable type", m.Name)
		return nil
	}
	kind, why := classifyResourceResult(m.Result)
	if why != "" {
		errs.AtPosition(m.Pos, "method %s: result %s: %s", m.Name, types.TypeString(m.Result, qual), why)
		return nil
	}
	r.Result = kind
	return r
}

// isTemplateVarType reports whether a template variable may bind to a
// param of type t: a string or an integer type, which the handler parses.
func isTemplateVarType(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && (b.Kind() == types.String || b.Info()&types.IsInteger != 0)
}

func classifyResourceResult(t types.Type) (resourceResult, string) {
	const want = "a resource returns mcp.ResourceContents or []mcp.ResourceContents by value"
	if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.String {
		return ResourceText, ""
	}
	if types.Identical(t, types.NewSlice(types.Typ[types.Byte])) {
		return ResourceBlob, ""
	}
	switch u := types.Unalias(t).(type) {
	case *types.Named:
		if isMCPType(u, "ResourceContents") {
			return ResourceContents, ""
		}
	case *types.Slice:
		if isMCPNamed(u.Elem(), "ResourceContents") {
			return ResourceContentsList, ""
		}
		if p, ok := types.Unalias(u.Elem()).(*types.Pointer); ok && isMCPNamed(p.Elem(), "ResourceContents") {
			return 0, want
		}
	case *types.Pointer:
		if isMCPNamed(u.Elem(), "ResourceContents") {
			return 0, want
		}
	}
	if kind, _ := resultContent(t); kind != ContentNone || isMCPNamed(t, "CallToolResult") {
		return 0, "tool content is not a resource's contents; return mcp.ResourceContents or []mcp.ResourceContents"
	}
	return ResourceJSON, ""
}

func buildPrompt(m *Method, d *Directive, errs *diag.Collector, qual types.Qualifier) *Prompt {
	p := &Prompt{Name: naming.SnakeCase(m.Name), namePos: errs.Position(d.Pos)}
	if v, pos, ok := d.value("name"); ok {
		if v == "" {
			errs.At(pos, "method %s: prompt name must not be empty", m.Name)
		}
		p.Name, p.namePos = v, errs.Position(pos)
	}
	p.Title, _, _ = d.value("title")
	ok := true
	for _, prm := range m.Params {
		t, required := prm.Type, true
		if ptr, isPtr := types.Unalias(t).(*types.Pointer); isPtr {
			t, required = ptr.Elem(), false
		}
		if b, isBasic := t.Underlying().(*types.Basic); !isBasic || b.Kind() != types.String {
			errs.AtPosition(prm.Pos, "method %s: parameter %s: a prompt argument is a string (required) or *string (optional), not %s", m.Name, prm.Name, types.TypeString(prm.Type, qual))
			ok = false
			continue
		}
		p.Args = append(p.Args, &PromptArg{Param: prm, Required: required})
	}
	const want = "a prompt returns a string type, mcp.PromptMessage, []mcp.PromptMessage or *mcp.GetPromptResult"
	switch r := m.Result; {
	case r == nil:
		errs.AtPosition(m.Pos, "method %s: %s, and error", m.Name, want)
		return nil
	case isStringType(r):
		p.Result = PromptText
	case isMCPNamed(r, "PromptMessage"):
		p.Result = PromptMessage
	case isSliceOf(r, "PromptMessage"):
		p.Result = PromptMessages
	case isPointerTo(r, "GetPromptResult"):
		p.Result = PromptFull
	default:
		errs.AtPosition(m.Pos, "method %s: result %s: %s", m.Name, types.TypeString(r, qual), want)
		return nil
	}
	if !ok {
		return nil
	}
	return p
}

func buildCompleter(m *Method, d *Directive, errs *diag.Collector) *Completer {
	c := &Completer{}
	prompt, ppos, hasPrompt := d.value("prompt")
	tmpl, tpos, hasTemplate := d.value("resource")
	arg, apos, hasArg := d.value("arg")
	valid := true
	switch {
	case hasPrompt && hasTemplate:
		errs.At(tpos, "method %s: //rpcgen:complete takes prompt= or resource=, not both", m.Name)
		valid = false
	case !hasPrompt && !hasTemplate:
		errs.At(d.Pos, "method %s: //rpcgen:complete needs prompt=NAME or resource=TEMPLATE", m.Name)
		valid = false
	case hasPrompt:
		c.Prompt, c.targetPos = prompt, errs.Position(ppos)
	default:
		c.Template, c.targetPos = tmpl, errs.Position(tpos)
	}
	if !hasArg || arg == "" {
		errs.At(d.Pos, "method %s: //rpcgen:complete needs arg=NAME, the argument or template variable it completes", m.Name)
		valid = false
	}
	c.Arg, c.argPos = arg, errs.Position(apos)

	sigOK := len(m.Params) >= 1 && len(m.Params) <= 2 && types.Identical(m.Params[0].Type, types.Typ[types.String])
	if len(m.Params) == 2 {
		c.HasContext = true
		sigOK = sigOK && types.Identical(m.Params[1].Type, types.NewMap(types.Typ[types.String], types.Typ[types.String]))
	}
	switch r := m.Result; {
	case r == nil:
		sigOK = false
	case types.Identical(r, types.NewSlice(types.Typ[types.String])):
	case isPointerTo(r, "Completion"):
		c.Full = true
	default:
		sigOK = false
	}
	if !sigOK {
		errs.AtPosition(m.Pos, "method %s: a completion provider is %s(ctx context.Context, value string[, context map[string]string]) ([]string or *mcp.Completion, error)", m.Name, m.Name)
		valid = false
	}
	if !valid {
		return nil
	}
	return c
}
