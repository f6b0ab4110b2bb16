package generator

import (
	"fmt"
	"go/types"

	"github.com/dave/jennifer/jen"
)

// Tool content: a method whose result is not data but what a tool shows a
// model (text, images, audio, resources) returns one of the MCP runtime's
// content types. Its tool has no output schema; the runtime sends the blocks
// as they are (Tool.Content), the typed MCP client returns them, and over
// JSON-RPC they travel as their JSON.

// contentKind says which content type a method returns.
type contentKind int

const (
	contentNone   contentKind = iota // the result is data (or there is none)
	contentBlock                     // mcp.Content: one block
	contentList                      // []mcp.Content: a list of blocks
	contentResult                    // *mcp.CallToolResult: a whole result, isError and all
)

// resultContent classifies a method's result type t. A near miss, a type
// built from the content types that is none of the three, gets a reason to
// refuse it: it would otherwise be sent as a structured result, which is
// not what its author meant.
func resultContent(t types.Type) (contentKind, string) {
	const want = "a tool returns content as mcp.Content, []mcp.Content or *mcp.CallToolResult"
	switch u := types.Unalias(t).(type) {
	case *types.Named:
		switch {
		case isMCPType(u, "Content"):
			return contentBlock, ""
		case isMCPType(u, "CallToolResult"):
			return contentNone, "mcp.CallToolResult is returned by pointer: " + want
		}
	case *types.Slice:
		if n, ok := types.Unalias(u.Elem()).(*types.Named); ok && isMCPType(n, "Content") {
			return contentList, ""
		}
		if p, ok := types.Unalias(u.Elem()).(*types.Pointer); ok && isMCPNamed(p.Elem(), "Content") {
			return contentNone, want
		}
	case *types.Pointer:
		switch {
		case isMCPNamed(u.Elem(), "CallToolResult"):
			return contentResult, ""
		case isMCPNamed(u.Elem(), "Content"):
			return contentNone, want
		}
		if s, ok := types.Unalias(u.Elem()).(*types.Slice); ok && isMCPNamed(s.Elem(), "Content") {
			return contentNone, want
		}
	}
	return contentNone, ""
}

func isMCPNamed(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && isMCPType(n, name)
}

func isMCPType(n *types.Named, name string) bool {
	return n.Obj().Name() == name && pkgPath(n) == mcpPath
}

// checkContent sets m.Content from its result, reporting a near miss.
func checkContent(m *Method, errs *errorCollector, typeName string) {
	if m.Result == nil {
		return
	}
	kind, why := resultContent(m.Result)
	if why != "" {
		errs.list = append(errs.list, &Error{Pos: m.Pos, Msg: fmt.Sprintf("method %s: result %s: %s", m.Name, typeName, why)})
		return
	}
	m.Content = kind
}

// contentEncode is the dispatcher's encoding of a content result, without
// encoding/json: the blocks as the latest MCP revision writes them.
func contentEncode(m *Method) *jen.Statement {
	switch m.Content {
	case contentList:
		return jen.Return(jen.Qual(mcpPath, "AppendContentList").Call(jen.Nil(), jen.Id("result")), jen.Nil())
	default: // a Content value, or a *CallToolResult (nil is null)
		return jen.Return(jen.Id("result").Dot("MarshalJSON").Call())
	}
}

// contentHandler is the tool handler of a content method: the dispatcher's
// method, wrapped so that it returns a whole tools/call result.
func contentHandler(m *Method, serve *jen.Statement) *jen.Statement {
	switch m.Content {
	case contentBlock:
		return jen.Qual(mcpPath, "WrapContent").Call(serve)
	case contentList:
		return jen.Qual(mcpPath, "WrapContentList").Call(serve)
	}
	return serve
}

// contentCall is the body of the typed MCP client's method for a content
// method: call is the mcp helper's arguments (context, caller, tool, params).
func contentCall(m *Method, sig *signature, args ...jen.Code) []jen.Code {
	switch m.Content {
	case contentBlock:
		return []jen.Code{jen.Return(jen.Qual(mcpPath, "CallToolBlock").Call(args...))}
	case contentList:
		return []jen.Code{
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Qual(mcpPath, "CallToolContent").Call(args...),
			jen.If(jen.Err().Op("!=").Nil()).Block(sig.ret(jen.Err())),
			jen.Return(jen.Id("result").Dot("Content"), jen.Nil()),
		}
	}
	return []jen.Code{jen.Return(jen.Qual(mcpPath, "CallToolContent").Call(args...))}
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
