package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// contentEncode is the dispatcher's encoding of a content result, without
// encoding/json: the blocks as the latest MCP revision writes them.
func contentEncode(m *model.Method) *jen.Statement {
	switch m.Content {
	case model.ContentList:
		return jen.Return(jen.Qual(model.MCPPath, "AppendContentList").Call(jen.Nil(), jen.Id("result")), jen.Nil())
	default: // a Content value, or a *CallToolResult (nil is null)
		return jen.Return(jen.Id("result").Dot("MarshalJSON").Call())
	}
}

// contentHandler is the tool handler of a content method: the dispatcher's
// method, wrapped so that it returns a whole tools/call result.
func contentHandler(m *model.Method, serve *jen.Statement) *jen.Statement {
	switch m.Content {
	case model.ContentBlock:
		return jen.Qual(model.MCPServerPath, "WrapContent").Call(serve)
	case model.ContentList:
		return jen.Qual(model.MCPServerPath, "WrapContentList").Call(serve)
	}
	return serve
}

// contentCall is the body of the typed MCP client's method for a content
// method: call is the mcp helper's arguments (context, caller, tool, params).
func contentCall(m *model.Method, sig *signature, args ...jen.Code) []jen.Code {
	switch m.Content {
	case model.ContentBlock:
		return []jen.Code{jen.Return(jen.Qual(model.MCPPath, "CallToolBlock").Call(args...))}
	case model.ContentList:
		return []jen.Code{
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Qual(model.MCPPath, "CallToolContent").Call(args...),
			jen.If(jen.Err().Op("!=").Nil()).Block(sig.ret(jen.Err())),
			jen.Return(jen.Id("result").Dot("Content"), jen.Nil()),
		}
	}
	return []jen.Code{jen.Return(jen.Qual(model.MCPPath, "CallToolContent").Call(args...))}
}
