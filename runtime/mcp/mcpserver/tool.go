package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Tool is one tool a server offers: its descriptor and the function that
// runs it. rpcgen generates these from a Go interface.
type Tool struct {
	// Name is unique within a server: 1 to 128 of A-Z a-z 0-9 _ - .
	Name string
	// Title is a human-readable display name: the descriptor's title from
	// 2025-06-18 on, and its annotations.title in 2025-03-26, which has no
	// other place for it (unless Annotations sets one); 2024-11-05 has none.
	Title string
	// Description tells a model what the tool does and when to use it.
	Description string
	// InputSchema is the JSON Schema (2020-12) of the arguments object; its
	// root is "type":"object".
	InputSchema json.RawMessage
	// OutputSchema is the JSON Schema of the structured result, nil when the
	// tool returns none. Its root is "type":"object".
	OutputSchema json.RawMessage
	// Annotations are hints about the tool's behaviour; nil leaves every
	// hint at the protocol's default.
	Annotations *mcp.ToolAnnotations
	// Scopes are the OAuth scopes a caller's access token must grant to call
	// the tool (//rpcgen:tool scopes=notes.write). They are checked before
	// the handler runs whenever the request carries a Grant (over HTTP with
	// mcphttp.Auth: a token lacking one gets 403 insufficient_scope naming
	// them); a server without authorization (stdio) runs every tool.
	Scopes []string
	// Digest, when set, is the digest of the descriptor rpcgen computed at
	// generate time (the generated <Svc><Method>ToolDigest constant);
	// tools/list sends it under _meta's mcp.MetaDigest key, so that a host
	// can pin the tool.
	Digest string
	// Errors are the errors the tool declares (//rpcgen:method errors=...).
	// A failed call whose code is one of them says the error's name and code
	// in the text the model reads, and its data in a second text block, as
	// the JSON-RPC error object; see docs/mcp.md, "Tool errors".
	Errors []DeclaredError
	// Icons are images a client may show for the tool; tools/list sends
	// them from 2025-11-25 on. Each must pass mcp.CheckIcon.
	Icons []mcp.Icon
	// Meta is the descriptor's own _meta object (from 2025-06-18 on), nil
	// for none: keys mcp.CheckMetaKey accepts, beside Digest's, which it
	// may not hold. Extensions describe tools there (MCP Apps' "ui").
	Meta json.RawMessage
	// Handler runs the tool.
	Handler ToolHandler
	// Content says that Handler returns a whole tools/call result, an object
	// such as ContentResult or (*CallToolResult).AppendJSON writes (content
	// blocks, and optionally isError, structuredContent, _meta), rather than
	// a structured result. The server passes it on as each revision knows
	// it: blocks a revision lacks become text blocks describing them (audio
	// before 2025-03-26, resource links before 2025-06-18), structuredContent
	// is left out before 2025-06-18, and 2026-07-28 gets its resultType and
	// _meta. No result (null) is an empty content list.
	Content bool
	// TrustResults says that Handler's results are encoding/json's output, as
	// generated tools' are: valid JSON by construction, so the server puts
	// them in the response without checking them again (unless the server
	// has ToolMiddleware, which may replace a result). A handler that sets it
	// and returns invalid JSON sends a malformed response; hand-written tools
	// leave it false.
	TrustResults bool
	// Append, when set, is Handler appending the structured result's JSON to
	// dst rather than returning a slice of its own, as generated tools do
	// (rpcimpl.AppendResult): the server hands it a buffer it reuses and
	// trusts what it appends, as TrustResults says. The server calls it in
	// place of Handler when it has no ToolMiddleware and the tool is neither
	// Content nor a task (Task); elsewhere Handler runs, so the two must do
	// the same. Hand-written tools leave it nil.
	Append ToolAppender
	// Task says whether a call runs as a task of the Tasks extension
	// (task.go): TaskOptional when the client declared the extension on the
	// call, TaskRequired always (refusing clients that did not). It takes
	// the server's task runtime, package runtime/mcp/tasks.
	Task TaskSupport
	// TaskBegins says that the handler marks where a call becomes a task,
	// with BeginTask: it runs in the request until then, asking the client
	// for input on the call itself. Without it a task is created before the
	// handler runs.
	TaskBegins bool
}

// DeclaredError names an error a tool declares: the code it fails with and
// the name its description gives it (DivisionByZero for ErrDivisionByZero).
type DeclaredError struct {
	Name string
	Code int64
}

// ToolHandler runs a tool. args is the raw "arguments" object of the call, nil
// when the client sent none. The result is the structured result, a JSON
// object, or nil when the tool returns none. An error becomes a result with
// isError set, so the model sees what went wrong and can correct its call;
// only a *runtime.Error with CodeMissingClientCapability, or a ProtocolError,
// is a protocol error.
type ToolHandler func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

// ToolAppender is a ToolHandler that appends the result's JSON to dst and
// returns the extended slice (see Tool.Append). dst, and the slice returned
// (dst grown, or one the appender made), belong to the server, which reuses
// them for later calls: the appender keeps no reference to either, and
// returns no slice it holds elsewhere.
type ToolAppender func(ctx context.Context, args json.RawMessage, dst []byte) (json.RawMessage, error)

// WrapResult adapts a handler whose result is not a JSON object (a list, a
// string, a number) to MCP, where structured content is an object: the
// result travels as {"result": R}, as the generated output schema says.
func WrapResult(h ToolHandler) ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		raw, err := h(ctx, args)
		if err != nil || raw == nil {
			return raw, err
		}
		wrapped := make(json.RawMessage, 0, len(raw)+len(`{"result":}`))
		wrapped = append(wrapped, `{"result":`...)
		wrapped = append(wrapped, raw...)
		return append(wrapped, '}'), nil
	}
}
