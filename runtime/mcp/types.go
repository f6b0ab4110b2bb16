package mcp

import (
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime"
)

// ToolInfo describes one tool as a server lists it in tools/list.
type ToolInfo struct {
	// Name identifies the tool in tools/call.
	Name string `json:"name"`
	// Title is a human-readable display name, if the server gave one.
	Title string `json:"title,omitempty"`
	// Description tells a model what the tool does.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments object.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of the structured result, nil when the
	// tool declares none.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the server's behaviour hints; untrusted.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Icons are images a client may show for the tool (2025-11-25).
	Icons []Icon `json:"icons,omitempty"`
	// Meta is the descriptor's _meta object (2025-06-18), nil when absent.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CallToolParams is one tools/call request as CallToolRaw sends it.
type CallToolParams struct {
	// Name is the tool to call.
	Name string
	// Arguments is the arguments object: any value that encodes as a JSON
	// object, a json.RawMessage holding one, or nil for none.
	Arguments any
	// OnProgress, when set, asks the server for progress and receives each
	// notifications/progress for this call until its response arrives. It
	// runs on the client's reader (or, in process, the calling goroutine), in
	// the order the server sent them, and must not call the client back.
	OnProgress func(ProgressNotification)
}

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	// Content is what the tool returned for a model to read.
	Content []Content `json:"content"`
	// StructuredContent is the structured result (2025-06-18 and later), nil
	// when absent.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError reports a tool execution error, described by Content.
	IsError bool `json:"isError,omitempty"`
	// ResultType is "complete" for a final result (2026-07-28); empty from
	// a legacy server.
	ResultType string `json:"resultType,omitempty"`
	// Meta is the result's _meta object, if any.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Content is one content block of a tool result. Type says which of the
// other fields are set: "text" (Text), "image" and "audio" (Data, base64, and
// MIMEType), "resource_link" (URI, Name, and optionally Title, Description,
// MIMEType, Size), "resource" (Resource, an embedded resource). Annotations
// and Meta are raw JSON objects, nil when absent. Build blocks with
// TextContent, ImageContent, AudioContent, EmbeddedText, EmbeddedBlob and
// ResourceLink; a tool method returning Content, []Content or
// *CallToolResult returns them to the client as they are.
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MIMEType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        int64             `json:"size,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations json.RawMessage   `json:"annotations,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
	// A tool_use block of a sampling message (2025-11-25): ID, Name and
	// Input, the arguments object.
	ID    string          `json:"id,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// A tool_result block: ToolUseID, the blocks of the result in Content,
	// and optionally StructuredContent and IsError.
	ToolUseID         string          `json:"toolUseId,omitempty"`
	Content           []Content       `json:"content,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// ResourceContents is the resource an embedded resource block carries: a
// text resource (Text) or a binary one (Blob, base64).
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     string          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// ProgressNotification is the payload of notifications/progress.
type ProgressNotification struct {
	// ProgressToken is the token of the request it reports on.
	ProgressToken json.RawMessage `json:"progressToken"`
	// Progress increases with every notification.
	Progress float64 `json:"progress"`
	// Total is the expected final value, 0 when unknown.
	Total float64 `json:"total,omitempty"`
	// Message describes the current step, if the server gave one.
	Message string `json:"message,omitempty"`
	// Meta is the notification's _meta, if any: a stream tool's item, under
	// StreamItemMeta.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// LogMessage is the payload of notifications/message.
type LogMessage struct {
	// Level is the RFC 5424 severity: debug, info, notice, warning, error,
	// critical, alert or emergency.
	Level string `json:"level"`
	// Logger names the source, if the server gave one.
	Logger string `json:"logger,omitempty"`
	// Data is the logged value: any JSON.
	Data json.RawMessage `json:"data"`
}

// ToolError is the error CallTool returns when a tool reports a failure
// (isError: true). Error returns the text the tool gave, which is written for
// a model and usually for a person too. When the result carries the error's
// code, message and data (under _meta's MetaError key, as rpcgen's servers
// send them) Err holds them, and errors.As finds it.
type ToolError struct {
	// Text joins the result's text content blocks.
	Text string
	// Result is the whole result.
	Result *CallToolResult
	// Err is the error the server sent under MetaError, nil when none.
	Err *runtime.Error
}

// Error returns the tool's error text.
func (e *ToolError) Error() string { return e.Text }

// Unwrap returns Err, so that errors.As(err, &rpcErr) finds the
// *runtime.Error of a failed tool call as it finds that of a JSON-RPC call.
func (e *ToolError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}
