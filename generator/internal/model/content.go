package model

import (
	"fmt"
	"go/types"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// Tool content: a method whose result is not data but what a tool shows a
// model (text, images, audio, resources) returns one of the MCP runtime's
// content types. Its tool has no output schema; the runtime sends the blocks
// as they are (Tool.Content), the typed MCP client returns them, and over
// JSON-RPC they travel as their JSON.

// ContentKind says which content type a method returns.
type ContentKind int

const (
	ContentNone   ContentKind = iota // the result is data (or there is none)
	ContentBlock                     // mcp.Content: one block
	ContentList                      // []mcp.Content: a list of blocks
	contentResult                    // *mcp.CallToolResult: a whole result, isError and all
)

// resultContent classifies a method's result type t. A near miss, a type
// built from the content types that is none of the three, gets a reason to
// refuse it: it would otherwise be sent as a structured result, which is
// not what its author meant.
func resultContent(t types.Type) (ContentKind, string) {
	const want = "a tool returns content as mcp.Content, []mcp.Content or *mcp.CallToolResult"
	switch u := types.Unalias(t).(type) {
	case *types.Named:
		switch {
		case isMCPType(u, "Content"):
			return ContentBlock, ""
		case isMCPType(u, "CallToolResult"):
			return ContentNone, "mcp.CallToolResult is returned by pointer: " + want
		}
	case *types.Slice:
		if n, ok := types.Unalias(u.Elem()).(*types.Named); ok && isMCPType(n, "Content") {
			return ContentList, ""
		}
		if p, ok := types.Unalias(u.Elem()).(*types.Pointer); ok && isMCPNamed(p.Elem(), "Content") {
			return ContentNone, want
		}
	case *types.Pointer:
		switch {
		case isMCPNamed(u.Elem(), "CallToolResult"):
			return contentResult, ""
		case isMCPNamed(u.Elem(), "Content"):
			return ContentNone, want
		}
		if s, ok := types.Unalias(u.Elem()).(*types.Slice); ok && isMCPNamed(s.Elem(), "Content") {
			return ContentNone, want
		}
	}
	return ContentNone, ""
}

func isMCPNamed(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && isMCPType(n, name)
}

func isMCPType(n *types.Named, name string) bool {
	return n.Obj().Name() == name && PkgPath(n) == MCPPath
}

// checkContent sets m.Content from its result, reporting a near miss.
func checkContent(m *Method, errs *diag.Collector, typeName string) {
	if m.Result == nil {
		return
	}
	kind, why := resultContent(m.Result)
	if why != "" {
		errs.List = append(errs.List, &diag.Error{Pos: m.Pos, Msg: fmt.Sprintf("method %s: result %s: %s", m.Name, typeName, why)})
		return
	}
	m.Content = kind
}

// packageNameQualifier writes types of other packages with their package's
// name (mcp.Content), and those of pkg unqualified.
func packageNameQualifier(pkg *types.Package) types.Qualifier {
	return func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
}

// MCPPath is the import path of the MCP vocabulary generated code names (the
// content types, the callers and calls of the typed MCP client).
const MCPPath = "github.com/rpcgen/rpcgen/runtime/mcp"

// MCPServerPath is the import path of the MCP server generated tools,
// resources and prompts plug into.
const MCPServerPath = "github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
