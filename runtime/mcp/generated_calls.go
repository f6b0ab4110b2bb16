package mcp

import (
	"context"

	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

// The functions below are the bodies of a generated typed MCP client's
// methods. A tool's error result becomes the *runtime.Error the server sent
// with it (see MetaError), as the typed JSON-RPC client returns one, or a
// *ToolError when the server sent none.

// CallTool calls the tool name through c with args and returns its
// structured result decoded as an R, or the zero R and the error. It is the
// body of a generated MCP client's methods whose result is a JSON object.
func CallTool[R any](ctx context.Context, c ToolCaller, name string, args any) (R, error) {
	var result R
	if err := c.CallTool(ctx, name, args, &result); err != nil {
		var zero R
		return zero, typedError(err)
	}
	return result, nil
}

// CallToolWrapped is CallTool for a tool whose result is not a JSON object
// (a list, a string, a number), which the server sends wrapped as
// {"result": ...} (see WrapResult): it returns what is under "result".
func CallToolWrapped[R any](ctx context.Context, c ToolCaller, name string, args any) (R, error) {
	var wrapped struct {
		Result R `json:"result"`
	}
	if err := c.CallTool(ctx, name, args, &wrapped); err != nil {
		var zero R
		return zero, typedError(err)
	}
	return wrapped.Result, nil
}

// CallToolDecoded is CallTool decoding the structured result with decode,
// a function rpcgen generated for R, which reads it as json.Unmarshal
// would and without reflection.
func CallToolDecoded[R any](ctx context.Context, c ToolCaller, name string, args any, decode func(*rpcimpl.Decoder, *R)) (R, error) {
	return callToolInto(ctx, c, name, args, rpcimpl.NewResultOf(decode))
}

// CallToolWrappedDecoded is CallToolWrapped decoding what is under
// "result" with decode, a function rpcgen generated for R.
func CallToolWrappedDecoded[R any](ctx context.Context, c ToolCaller, name string, args any, decode func(*rpcimpl.Decoder, *R)) (R, error) {
	return callToolInto(ctx, c, name, args, rpcimpl.NewWrappedResultOf(decode))
}

func callToolInto[R any](ctx context.Context, c ToolCaller, name string, args any, r *rpcimpl.ResultOf[R]) (R, error) {
	if err := c.CallTool(ctx, name, args, r); err != nil {
		var zero R
		return zero, typedError(err)
	}
	return r.Value, nil
}

// CallToolNoResult calls a tool whose method returns only an error.
func CallToolNoResult(ctx context.Context, c ToolCaller, name string, args any) error {
	return typedError(c.CallTool(ctx, name, args, nil))
}

// ToolNotifier is a ToolCaller that can call a tool without waiting for its
// result; *mcpclient.Client is one.
type ToolNotifier interface {
	NotifyTool(ctx context.Context, name string, args any) error
}

// NotifyTool calls the tool of a notification method (//rpcgen:method
// notification): like the JSON-RPC client, which sends a notification and
// returns, it returns once the call is on its way, without waiting for the
// tool to run; the result, and any error the tool returns, are dropped. A c
// that is not a ToolNotifier is called and waited for.
func NotifyTool(ctx context.Context, c ToolCaller, name string, args any) error {
	if n, ok := c.(ToolNotifier); ok {
		return n.NotifyTool(ctx, name, args)
	}
	return CallToolNoResult(ctx, c, name, args)
}

// RetrySafeDeclarer is a ToolCaller that may try a lost call of a tool again
// when told the tool is read-only or idempotent; *mcpclient.Client is one.
type RetrySafeDeclarer interface {
	DeclareRetrySafe(tools ...string)
}

// DeclareRetrySafe tells c, when it is a RetrySafeDeclarer (as *mcpclient.Client is),
// that the tools named are read-only or idempotent, so that a call of one
// lost with its connection may be tried again without the client listing
// the tools to learn it. A generated typed MCP client declares the tools its
// directives mark so (//rpcgen:tool readonly, idempotent; //rpcgen:method
// idempotent). Any other c is left alone.
func DeclareRetrySafe(c ToolCaller, tools ...string) {
	if d, ok := c.(RetrySafeDeclarer); ok {
		d.DeclareRetrySafe(tools...)
	}
}

// FeatureCaller is what a generated MCP client of a service with resources,
// prompts or completions calls through; *mcpclient.Client implements it.
type FeatureCaller interface {
	ToolCaller
	ReadResource(ctx context.Context, uri string) ([]ResourceContents, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*GetPromptResult, error)
	Complete(ctx context.Context, ref CompletionRef, argument, value string, context map[string]string) (*Completion, error)
}
