package mcp

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// Sampling with tools (SEP-1577, 2025-11-25 and later): a server offers the
// client's model tools (CreateMessageParams.Tools, ToolChoice); the model
// answers with tool_use blocks, and the server sends their results back as
// tool_result blocks in a user message; a message may hold several blocks.
// The client must have declared sampling.tools.

// Content types of sampling messages, beside text, image and audio.
const (
	ContentToolUse    = "tool_use"    // the model calls a tool: ID, Name, Input
	ContentToolResult = "tool_result" // the result of a tool use: ToolUseID, Content, StructuredContent, IsError
)

// ToolChoice says how the model uses the tools of a sampling request:
// Mode "auto" (the model decides; the default), "required" (it must use one)
// or "none" (it must not).
type ToolChoice struct {
	Mode string `json:"mode,omitempty"`
}

// ToolUseContent returns a tool_use block: the model calls the tool name
// with input (a JSON object), id matching the tool_result that answers it.
func ToolUseContent(id, name string, input json.RawMessage) Content {
	return Content{Type: ContentToolUse, ID: id, Name: name, Input: input}
}

// ToolResultContent returns a tool_result block answering the tool use id
// with content (text, images, audio, resource links, embedded resources).
func ToolResultContent(toolUseID string, content ...Content) Content {
	if content == nil {
		content = []Content{}
	}
	return Content{Type: ContentToolResult, ToolUseID: toolUseID, Content: content}
}

// Blocks returns the message's content blocks: Contents when set, else
// Content alone.
func (m *SamplingMessage) Blocks() []Content { return blocks(m.Content, m.Contents) }

// Blocks returns the result's content blocks: Contents when set, else
// Content alone.
func (r *CreateMessageResult) Blocks() []Content { return blocks(r.Content, r.Contents) }

func blocks(one Content, all []Content) []Content {
	if len(all) > 0 {
		return all
	}
	return []Content{one}
}

// samplingContent encodes the content member of a message: one block as an
// object (what every revision reads), several as an array (2025-11-25).
func samplingContent(one Content, all []Content) any {
	switch len(all) {
	case 0:
		return one
	case 1:
		return all[0]
	}
	return all
}

// decodeSamplingContent decodes a content member, an object or an array of
// blocks, into the first block and, for an array, all of them.
func decodeSamplingContent(raw json.RawMessage, one *Content, all *[]Content) error {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, all); err != nil {
			return err
		}
		if len(*all) == 0 {
			return errors.New("mcp: a sampling message with no content block")
		}
		*one = (*all)[0]
		return nil
	}
	return json.Unmarshal(raw, one)
}

type samplingMessageJSON struct {
	Role    string          `json:"role"`
	Content any             `json:"content"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// MarshalJSON encodes the message with its one block as an object, or its
// blocks as an array.
func (m SamplingMessage) MarshalJSON() ([]byte, error) {
	return json.Marshal(samplingMessageJSON{Role: m.Role, Content: samplingContent(m.Content, m.Contents), Meta: m.Meta})
}

// UnmarshalJSON decodes a message whose content is a block or an array of
// blocks.
func (m *SamplingMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Meta    json.RawMessage `json:"_meta,omitempty"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = SamplingMessage{Role: w.Role, Meta: w.Meta}
	if w.Content == nil {
		return nil
	}
	return decodeSamplingContent(w.Content, &m.Content, &m.Contents)
}

// MarshalJSON encodes the result with its one block as an object, or its
// blocks as an array.
func (r CreateMessageResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role       string          `json:"role"`
		Content    any             `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason,omitempty"`
		Meta       json.RawMessage `json:"_meta,omitempty"`
	}{r.Role, samplingContent(r.Content, r.Contents), r.Model, r.StopReason, r.Meta})
}

// UnmarshalJSON decodes a result whose content is a block or an array of
// blocks.
func (r *CreateMessageResult) UnmarshalJSON(b []byte) error {
	var w struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason,omitempty"`
		Meta       json.RawMessage `json:"_meta,omitempty"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = CreateMessageResult{Role: w.Role, Model: w.Model, StopReason: w.StopReason, Meta: w.Meta}
	if w.Content == nil {
		return nil
	}
	return decodeSamplingContent(w.Content, &r.Content, &r.Contents)
}

// UsesTools reports whether p needs the client's sampling.tools capability
// and a 2025-11-25 peer: tools, a tool choice, several blocks in a message,
// or a tool_use or tool_result block.
func (p *CreateMessageParams) UsesTools() bool {
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		return true
	}
	for i := range p.Messages {
		for _, c := range p.Messages[i].Blocks() {
			if c.Type == ContentToolUse || c.Type == ContentToolResult {
				return true
			}
		}
	}
	return false
}

// appendToolBlock appends the members of a tool_use block (id, input) or a
// tool_result block (toolUseId, content, structuredContent, isError).
func (c *Content) appendToolBlock(b []byte) []byte {
	switch c.Type {
	case ContentToolUse:
		b = append(b, `,"id":`...)
		b = jsonenc.AppendString(b, c.ID)
		b = append(b, `,"input":`...)
		if len(c.Input) == 0 {
			return append(b, "{}"...)
		}
		return append(b, c.Input...)
	case ContentToolResult:
		b = append(b, `,"toolUseId":`...)
		b = jsonenc.AppendString(b, c.ToolUseID)
		b = append(b, `,"content":`...)
		b = AppendContentList(b, c.Content)
		if len(c.StructuredContent) > 0 {
			b = append(b, `,"structuredContent":`...)
			b = append(b, c.StructuredContent...)
		}
		if c.IsError {
			b = append(b, `,"isError":true`...)
		}
	}
	return b
}
