// Package model is the generator's intermediate representation and the
// code that builds it: services, methods, params, MCP tools, resources,
// prompts and completers, read from the interfaces, their doc comments and
// their //rpcgen: directives, with every check that reports a positioned
// error in the user's source. The model decides names, directives and
// docs once, so that no later stage reads the syntax tree of an interface;
// it keeps the go/types type of every param and result, which the schema
// builder and the Go emitter walk.
package model

import (
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/skills"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Service is one Go interface turned into a JSON-RPC service.
type Service struct {
	Name string // Go interface name, e.g. "Calculator"; generated names start with it
	// Type is the interface as the generated code names it: a named
	// interface of the package or of another one, or an alias.
	Type    types.Type
	RPCName string         // service part of method names, e.g. "calculator"
	Doc     string         // doc comment text without directives
	Pos     token.Position // position of the interface name
	Methods []*Method      // in source order
	// ToolPrefix is put before every MCP tool name of the service, e.g. "notes_".
	ToolPrefix string
	// Scopes are the OAuth scopes every tool of the service requires
	// (//rpcgen:service scopes=notes.read), before each tool's own.
	Scopes []string
	// Schema holds the //rpcgen:schema options its methods start from.
	Schema SchemaOptions
	// Errors are the errors every method of the service may fail with
	// (//rpcgen:service errors=...).
	Errors []*DeclaredError
	// TypeSchemas are the schemas stated for the types that write their
	// own JSON which the services of the run use, by type key
	// (types.TypeString(t, nil)); one map, shared by every service.
	TypeSchemas map[string]*StatedSchema
	// Extension, when set, makes the service an MCP extension
	// (//rpcgen:extension): its methods are the extension's requests, not
	// tools. See extension.go.
	Extension *Extension
	// Skills, when set, are the skills of //rpcgen:skills dir=... on the
	// interface, read and checked at generate time (skills.go).
	Skills *skills.Set
	// Icons are the interface's //rpcgen:icon lines, for the server's
	// Implementation (the generated <Svc>Icons); nil when none.
	Icons []mcp.Icon
	// IgnoreBreaking are the rpcgen breaking rules the interface's
	// //rpcgen:breaking directives ignore, each "RULE:reason".
	IgnoreBreaking []string
	// Packages and Env are what the interface's //rpcgen:package and
	// //rpcgen:env lines say of the server for --server-json, beside the
	// flags (serverinfo.go).
	Packages []string // TYPE:IDENTIFIER
	Env      []EnvVar
}

// Method is one interface method.
type Method struct {
	Name         string         // Go name, e.g. "Add"
	RPCName      string         // full JSON-RPC method name, e.g. "calculator.add"
	Doc          string         // doc comment text without directives
	Pos          token.Position // position of the method name
	Context      string         // name of the context.Context param ("_" when unnamed), "" when the method has none
	Params       []*Param       // params after the context, in order
	StructParams bool           // the single param is a struct (or pointer to one) and is the params object itself
	Result       types.Type     // nil when the method returns only an error; a stream's item type
	// ResultDoc describes the result, from a "result: text" paragraph line
	// of the doc comment (see splitDocs); "" when there is none.
	ResultDoc    string
	Notification bool // sent without an id; the server never answers
	// Stream says the method returns iter.Seq2[Result, error]: its result is a
	// stream of Result items (see stream.go).
	Stream bool
	// Idempotent says a call may run more than once with the effect of once,
	// so a client may retry one lost with its connection: from
	// //rpcgen:method idempotent, or a tool hint readonly or idempotent.
	Idempotent bool
	Tool       *Tool // the method as an MCP tool; nil when skipped
	// Errors are the application errors the method declares it may fail
	// with: its service's and its own (//rpcgen:method errors=...).
	Errors []*DeclaredError
	// Examples are the method's explicit examples (//rpcgen:example).
	Examples []*Example
	// Content says the result is MCP tool content (mcp.Content,
	// []mcp.Content or *mcp.CallToolResult) rather than data; see content.go.
	Content ContentKind
	// Schema holds the //rpcgen:schema options of the method's schemas.
	Schema SchemaOptions
	// StatedInput and StatedOutput are the schemas the user stated for the
	// type of the method's one struct param and of its result (see
	// StatedSchema); nil where rpcgen derives them.
	StatedInput, StatedOutput *StatedSchema
	// Resource, Prompt and Completer describe the method as an MCP
	// resource (or resource template), prompt or completion provider; at
	// most one is set, and then Tool is nil. See features.go.
	Resource  *Resource
	Prompt    *Prompt
	Completer *Completer
	// IgnoreBreaking are the rpcgen breaking rules the method's
	// //rpcgen:breaking directives ignore, each "RULE:reason".
	IgnoreBreaking []string
}

// Tool is a method's MCP tool descriptor, from //rpcgen:tool and the doc comment.
type Tool struct {
	Name  string // e.g. "add_note", prefix included
	Title string // display name: title=..., else the method's name in words; "" for title=""
	// Hints of the tool's behaviour; nil leaves the protocol default.
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
	// Scopes are the OAuth scopes a caller's token must grant to call the
	// tool: the service's and then those of //rpcgen:tool scopes=..., each
	// once.
	Scopes []string
	// Task is "optional" or "required" when the tool runs as a task of the
	// Tasks extension (//rpcgen:tool task=...), "" when it never does.
	Task string
	// TaskBegins says the handler marks where the call becomes a task
	// (mcpserver.BeginTask; //rpcgen:tool taskbegins).
	TaskBegins bool
	// Icons (//rpcgen:icon) and Meta (meta=, a compact JSON object) are the
	// descriptor's; nil when not given.
	Icons []mcp.Icon
	Meta  json.RawMessage
	// App is the tool's MCP App view (//rpcgen:app), nil when it has none.
	App *App
}

// Param is one method parameter (other than the context).
type Param struct {
	Name    string     // Go name as declared, e.g. "limit"
	JSONKey string     // key in the by-name params object
	Type    types.Type // declared type
	Pos     token.Position
	// Doc describes the param, from a "name: text" paragraph line of the
	// method's doc comment (see splitParamDocs); "" when there is none.
	Doc string
}

// String prints the model in a stable, readable form; tests and debugging use it.
func (s *Service) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "service %s (%s)\n", s.Name, s.RPCName)
	for _, m := range s.Methods {
		fmt.Fprintf(&b, "  %s %q", m.Name, m.RPCName)
		if m.Notification {
			b.WriteString(" notification")
		}
		if m.StructParams {
			b.WriteString(" struct-params")
		}
		for _, p := range m.Params {
			fmt.Fprintf(&b, " %s:%s", p.JSONKey, types.TypeString(p.Type, nil))
		}
		if m.Stream {
			fmt.Fprintf(&b, " -> stream of %s", types.TypeString(m.Result, nil))
		} else if m.Result != nil {
			fmt.Fprintf(&b, " -> %s", types.TypeString(m.Result, nil))
		}
		if m.Idempotent {
			b.WriteString(" idempotent")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
