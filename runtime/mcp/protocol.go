package mcp

import (
	"context"
)

// Protocol revisions this package speaks. The first four are the legacy,
// session-based era, negotiated with initialize; the last is the modern,
// stateless era, selected per request by its _meta.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// LegacyVersions lists the legacy revisions, oldest first.
var LegacyVersions = []string{Version20241105, Version20250326, Version20250618, Version20251125}

// ModernVersions lists the modern revisions, oldest first.
var ModernVersions = []string{Version20260728}

// Error codes MCP defines on top of JSON-RPC 2.0.
const (
	// CodeHeaderMismatch: an HTTP header disagrees with the body (2026-07-28).
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a capability the
	// client did not declare (2026-07-28).
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the request's protocol version is not
	// served (2026-07-28).
	CodeUnsupportedProtocolVersion = -32022
)

// Keys of the per-request _meta object in 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Keys rpcgen's servers put in the _meta object of a tools/call result that
// has isError set. The prefix is the reverse DNS name of rpcgen's home
// (github.com/rpcgen), as MCP's _meta naming rules ask of extensions.
const (
	// MetaError holds the error the tool returned, as a JSON-RPC error
	// object: {"code": …, "message": …, "data": …}. The message is also the
	// result's text, which is what a model reads.
	MetaError = "io.github.rpcgen/error"
	// MetaNull (true) says the tool returned no result (null, a Go method's
	// nil pointer or map) where its output schema wants an object.
	MetaNull = "io.github.rpcgen/null"
	// MetaStreamItems holds, when a stream tool failed after producing items,
	// what it produced: {"count": …, "items": […], "truncated": …}, as its
	// result would have held them (see StreamResultItems). A client that asked
	// for progress got each item as a notification before this result too.
	MetaStreamItems = "io.github.rpcgen/streamItems"
)

// MetaDigest is the key of a tool descriptor's _meta (tools/list, from
// 2025-06-18 on) holding mcpserver.Tool.Digest: "sha256:" and the hex
// SHA-256 of the descriptor less its _meta, in the canonical JSON of RFC
// 8785, the digest tool manifests (SEP-2636) define.
const MetaDigest = "io.github.rpcgen/digest"

// Implementation names a client or server and its version.
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	// Icons are images a client may show for the implementation
	// (2025-11-25 and later; see CheckIcon).
	Icons []Icon `json:"icons,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour. Clients must treat them
// as untrusted. A nil pointer leaves a hint at its default: readOnly false,
// destructive true, idempotent false, openWorld true.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Bool returns a pointer to b, for ToolAnnotations literals.
func Bool(b bool) *bool { return &b }

// ToolCaller calls a tool by name: args are encoded as the call's arguments
// and the structured result is decoded into result (when it is not nil). A
// tool's error result is returned as an error. *mcpclient.Client implements it, and
// generated typed MCP clients call through it.
type ToolCaller interface {
	CallTool(ctx context.Context, name string, args, result any) error
}

// MCP Apps (the io.modelcontextprotocol/ui extension): a tool names a view, an
// HTML document served as a ui:// resource, that a host renders in a
// sandboxed iframe beside the tool's result; the view talks to the host over
// postMessage (JSON-RPC: ui/initialize, tools/call, ...).
const (
	// ExtensionApps is the identifier of the MCP Apps extension, which a
	// server serving views declares.
	ExtensionApps = "io.modelcontextprotocol/ui"
	// AppMIMEType is the MIME type of a view's resource.
	AppMIMEType = "text/html;profile=mcp-app"
	// AppURIScheme is the scheme of a view's resource URI, with its colon.
	AppURIScheme = "ui:"
	// MetaAppResourceURI is the older, flat key of a tool's _meta naming its
	// view, which hosts still read beside _meta.ui.resourceUri.
	MetaAppResourceURI = "ui/resourceUri"
)
