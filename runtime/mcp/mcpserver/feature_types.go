package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Resource is one resource a server offers at a fixed URI: its descriptor
// and the function that reads it. rpcgen generates these from methods marked
// //rpcgen:resource.
type Resource struct {
	// URI identifies the resource; an absolute URI, unique within a server.
	URI string
	// Name is the resource's programmatic name (required).
	Name string
	// Title is a human-readable display name.
	Title string
	// Description tells a model what the resource holds.
	Description string
	// MIMEType is the type of the resource's contents, if known.
	MIMEType string
	// Size is the size of the contents in bytes, 0 when unknown.
	Size int64
	// Annotations is a raw JSON object of annotations (audience, priority,
	// lastModified), nil when none.
	Annotations json.RawMessage
	// Icons are images a client may show for the resource (sent from
	// 2025-11-25 on), each one mcp.CheckIcon accepts.
	Icons []mcp.Icon
	// Meta is the descriptor's _meta object (sent from 2025-06-18 on), nil
	// for none; its keys must pass mcp.CheckMetaKey.
	Meta json.RawMessage
	// Handler reads the resource.
	Handler ResourceHandler
}

// ResourceTemplate is a family of resources whose URIs follow a template
// (RFC 6570 level 1: only {var} expressions), such as "notes://{id}".
type ResourceTemplate struct {
	// URITemplate is the template; each {var} matches one or more characters
	// other than '/' when a URI is read.
	URITemplate string
	// Name, Title, Description and MIMEType describe the template, as for
	// Resource.
	Name, Title, Description, MIMEType string
	// Annotations is a raw JSON object of annotations, nil when none.
	Annotations json.RawMessage
	// Icons and Meta are as for Resource.
	Icons []mcp.Icon
	Meta  json.RawMessage
	// Handler reads one resource of the family; req.Vars holds the values of
	// the template's variables, decoded.
	Handler ResourceHandler
	// Complete, when not nil, completes the template's variables
	// (completion/complete with a ref/resource).
	Complete CompletionHandler
}

// ResourceHandler reads a resource. It returns its contents (usually one,
// whose URI is req.URI), or ResourceNotFound(uri) when there is no such
// resource; any other error is an internal error the client sees as a
// JSON-RPC error.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) ([]mcp.ResourceContents, error)

// ReadResourceRequest is one resources/read.
type ReadResourceRequest struct {
	// URI is the URI the client asked for.
	URI string
	// Vars holds the template's variables; nil for a fixed resource.
	Vars map[string]string
}

// Prompt is one prompt a server offers: its descriptor and the function that
// builds its messages. rpcgen generates these from methods marked
// //rpcgen:prompt.
type Prompt struct {
	// Name identifies the prompt in prompts/get; unique within a server.
	Name string
	// Title is a human-readable display name.
	Title string
	// Description tells the user what the prompt is for.
	Description string
	// Arguments are the prompt's arguments, in order.
	Arguments []mcp.PromptArgument
	// Icons and Meta are as for Resource.
	Icons []mcp.Icon
	Meta  json.RawMessage
	// Handler builds the prompt's messages from its arguments; a required
	// argument is always present (the server checks before calling).
	Handler PromptHandler
	// Complete, when not nil, completes the prompt's arguments.
	Complete CompletionHandler
}

// PromptHandler builds a prompt's messages from its arguments.
type PromptHandler func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error)

// CompletionHandler suggests values for one argument of a prompt, or one
// variable of a resource template.
type CompletionHandler func(ctx context.Context, req *CompleteRequest) (*mcp.Completion, error)

// CompleteRequest is one completion/complete.
type CompleteRequest struct {
	// Argument is the name of the argument (or template variable).
	Argument string
	// Value is what the user has typed so far.
	Value string
	// Context holds the values of the arguments already resolved, if the
	// client sent them.
	Context map[string]string
}
