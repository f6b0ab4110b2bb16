package mcp

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// NewToolError returns the error a client reports for res, the result of a
// call of tool name that has isError set: its text blocks joined (or "tool
// NAME failed" when it has none), and the error the server sent under
// _meta's MetaError key, when it sent one.
func NewToolError(name string, res *CallToolResult) *ToolError {
	var texts []string
	for _, b := range res.Content {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if text == "" {
		text = "tool " + name + " failed"
	}
	return &ToolError{Text: text, Result: res, Err: metaError(res.Meta)}
}

// metaError decodes the MetaError member of a result's _meta, nil when it is
// absent or not an error object with a code.
func metaError(meta json.RawMessage) *runtime.Error {
	raw := wire.Member(meta, MetaError)
	if raw == nil {
		return nil
	}
	var e struct {
		Code    *int64          `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Code == nil {
		return nil
	}
	if wire.IsNull(e.Data) {
		e.Data = nil
	}
	return &runtime.Error{Code: *e.Code, Message: e.Message, Data: e.Data}
}

// IsNull reports whether r, a result with isError set, is the answer of a
// tool that returned no result (null) where its output schema wants an
// object: the server marks it with MetaNull, and a client reads it as the
// result null, not as an error.
func (r *CallToolResult) IsNull() bool {
	return string(wire.Member(r.Meta, MetaNull)) == "true"
}

// typedError is the error a generated typed MCP client returns for err: the
// *runtime.Error a failed tool call carried, so that a caller handles an
// error alike over JSON-RPC and MCP, or else err as it is.
func typedError(err error) error {
	var te *ToolError
	if errors.As(err, &te) && te.Err != nil {
		return te.Err
	}
	return err
}
