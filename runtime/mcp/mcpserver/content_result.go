package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// appendContent appends c as revision v knows it. A block type v lacks
// (audio before 2025-03-26, resource_link before 2025-06-18) becomes a text
// block describing it, so the model still learns of it; before 2025-06-18 a
// block has no title and no _meta, nor has an embedded resource.
func appendContent(b []byte, c mcp.Content, v ver) []byte {
	switch {
	case c.Type == mcp.ContentAudio && !v.annotations():
		c = mcp.Content{Type: mcp.ContentText, Text: describeAudio(c), Annotations: c.Annotations}
	case c.Type == mcp.ContentResourceLink && !v.structured():
		c = mcp.Content{Type: mcp.ContentText, Text: describeLink(c), Annotations: c.Annotations}
	}
	if !v.structured() {
		c.Title, c.Meta = "", nil
		if c.Resource != nil && c.Resource.Meta != nil {
			r := *c.Resource
			r.Meta = nil
			c.Resource = &r
		}
	}
	return c.AppendJSON(b)
}

// describeAudio is the text standing in for an audio block.
func describeAudio(c mcp.Content) string {
	n := base64.StdEncoding.DecodedLen(len(c.Data))
	return "[audio content (" + c.MIMEType + ", about " + strconv.Itoa(n) + " bytes) left out: the client's protocol revision has no audio blocks]"
}

// describeLink is the text standing in for a resource link.
func describeLink(c mcp.Content) string {
	s := "Resource: " + c.URI
	if c.Name != "" {
		s += " (" + c.Name + ")"
	}
	if c.MIMEType != "" {
		s += ", " + c.MIMEType
	}
	if c.Description != "" {
		s += ": " + c.Description
	}
	return s
}

// appendResourceContents appends r as revision v knows it: its _meta from
// 2025-06-18.
func appendResourceContents(b []byte, r mcp.ResourceContents, v ver) []byte {
	if !v.structured() {
		r.Meta = nil
	}
	return r.AppendJSON(b)
}

// WrapContent adapts a handler whose result is one content block (an
// encoded Content) to a Tool with Content set: the block travels as
// {"content":[block]}, and no result (null) as an empty content list.
func WrapContent(h ToolHandler) ToolHandler { return wrapContent(h, `{"content":[`, "]}") }

// WrapContentList adapts a handler whose result is a list of content blocks
// (an encoded []Content) to a Tool with Content set: the list travels as
// {"content":list}, and no result (null) as an empty list.
func WrapContentList(h ToolHandler) ToolHandler { return wrapContent(h, `{"content":`, "}") }

// wrapContent puts a handler's result between open and end.
func wrapContent(h ToolHandler, open, end string) ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		raw, err := h(ctx, args)
		if err != nil {
			return raw, err
		}
		raw = trimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			return json.RawMessage(`{"content":[]}`), nil
		}
		b := make(json.RawMessage, 0, len(open)+len(raw)+len(end))
		b = append(b, open...)
		b = append(b, raw...)
		return append(b, end...), nil
	}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// contentResult encodes the result of a tool with Content set, whose handler
// returned res, a CallToolResult object (or null for none), for revision v:
// content (its blocks rewritten for revisions older than 2025-06-18, which
// lack some block types and fields), structuredContent (from 2025-06-18),
// isError and _meta pass through; other members are left out, and the
// fields 2026-07-28 requires are added.
func (s *Server) contentResult(v ver, t *Tool, res json.RawMessage, ss *Session) json.RawMessage {
	res = trimSpace(res)
	if len(res) == 0 || string(res) == "null" {
		return s.endResult(append(make([]byte, 0, 16+len(s.modernTail)), `{"content":[]`...), v)
	}
	o, ok := runtime.ScanObject(res)
	if !ok || !json.Valid(res) {
		ss.logger.Error("mcp: tool returned a result that is not a JSON object", "tool", t.Name)
		return s.errorResult(v, internalToolError(t.Name))
	}
	var content, structured, meta []byte
	isError := false
	for {
		key, val, ok := o.Next()
		if !ok {
			break
		}
		switch string(key) {
		case "content":
			content = val
		case "structuredContent":
			structured = val
		case "isError":
			isError = string(val) == "true"
		case "_meta":
			meta = val
		}
	}
	if content != nil && string(content) != "null" && content[0] != '[' {
		ss.logger.Error("mcp: tool returned a content member that is not a list", "tool", t.Name)
		return s.errorResult(v, internalToolError(t.Name))
	}
	b := make([]byte, 0, len(res)+32+len(s.modernTail))
	b = append(b, `{"content":`...)
	switch {
	case content == nil || string(content) == "null":
		b = append(b, "[]"...)
	case v.structured():
		b = append(b, content...)
	default:
		var blocks []mcp.Content
		if err := json.Unmarshal(content, &blocks); err != nil {
			ss.logger.Error("mcp: tool returned malformed content", "tool", t.Name, "err", err)
			return s.errorResult(v, internalToolError(t.Name))
		}
		b = append(b, '[')
		for i := range blocks {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendContent(b, blocks[i], v)
		}
		b = append(b, ']')
	}
	if v.structured() && structured != nil && string(structured) != "null" {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
	}
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return s.endResultMeta(b, v, meta)
}
