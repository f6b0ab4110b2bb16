package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// Content types of tool results, as MCP names them in Content.Type.
const (
	ContentText         = "text"
	ContentImage        = "image"
	ContentAudio        = "audio"         // from 2025-03-26
	ContentResourceLink = "resource_link" // from 2025-06-18
	ContentResource     = "resource"      // an embedded resource
)

// TextContent returns a text block.
func TextContent(text string) Content { return Content{Type: ContentText, Text: text} }

// ImageContent returns an image block holding data, an image of type
// mimeType (such as "image/png"), base64-encoded as the protocol sends it.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: ContentImage, Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// AudioContent returns an audio block holding data, audio of type mimeType
// (such as "audio/wav"). Clients older than 2025-03-26 have no audio blocks
// and get a text block describing it instead.
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: ContentAudio, Data: base64.StdEncoding.EncodeToString(data), MIMEType: mimeType}
}

// EmbeddedText returns a block embedding the text resource uri, of type
// mimeType (such as "text/plain"; "" when unknown).
func EmbeddedText(uri, mimeType, text string) Content {
	return Content{Type: ContentResource, Resource: &ResourceContents{URI: uri, MIMEType: mimeType, Text: text}}
}

// EmbeddedBlob returns a block embedding the binary resource uri, of type
// mimeType ("" when unknown).
func EmbeddedBlob(uri, mimeType string, data []byte) Content {
	return Content{Type: ContentResource, Resource: &ResourceContents{URI: uri, MIMEType: mimeType,
		Blob: base64.StdEncoding.EncodeToString(data)}}
}

// ResourceLink returns a block pointing at the resource uri, which the client
// may read or subscribe to; name identifies it to people and models, mimeType
// ("" when unknown) says what it holds. Set Title, Description and Size on the
// result for more. Clients older than 2025-06-18 have no resource links and
// get a text block naming it instead.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: ContentResourceLink, URI: uri, Name: name, MIMEType: mimeType}
}

// ContentResult encodes blocks as the result of a tools/call: the object a
// Tool whose Content field is set returns from its Handler.
func ContentResult(blocks ...Content) json.RawMessage {
	b := append(make([]byte, 0, 64), `{"content":`...)
	b = AppendContentList(b, blocks)
	return append(b, '}')
}

// AppendContentList appends blocks as a JSON array ([] when there are none)
// and returns the extended slice.
func AppendContentList(b []byte, blocks []Content) []byte {
	b = append(b, '[')
	for i := range blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = blocks[i].AppendJSON(b)
	}
	return append(b, ']')
}

// AppendJSON appends c as the latest revision writes it and returns the
// extended slice. Annotations and Meta must hold valid JSON when set.
func (c Content) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = jsonenc.AppendString(b, c.Type)
	str := func(key, val string, always bool) {
		if val != "" || always {
			b = append(b, ',', '"')
			b = append(b, key...)
			b = append(b, '"', ':')
			b = jsonenc.AppendString(b, val)
		}
	}
	media := c.Type == ContentImage || c.Type == ContentAudio
	str("text", c.Text, c.Type == ContentText)
	str("data", c.Data, media)
	link := c.Type == ContentResourceLink
	str("uri", c.URI, link)
	str("name", c.Name, link)
	str("title", c.Title, false)
	str("description", c.Description, false)
	str("mimeType", c.MIMEType, media)
	if c.Size != 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, c.Size, 10)
	}
	if c.Resource != nil {
		b = append(b, `,"resource":`...)
		b = c.Resource.AppendJSON(b)
	}
	b = c.appendToolBlock(b)
	if len(c.Annotations) > 0 {
		b = append(b, `,"annotations":`...)
		b = append(b, c.Annotations...)
	}
	if len(c.Meta) > 0 {
		b = append(b, `,"_meta":`...)
		b = append(b, c.Meta...)
	}
	return append(b, '}')
}

// MarshalJSON encodes c as AppendJSON does.
func (c Content) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// AppendJSON appends r as the latest revision writes it and returns the
// extended slice. A resource without Blob is a text resource: its text is
// always written.
func (r *ResourceContents) AppendJSON(b []byte) []byte {
	b = append(b, `{"uri":`...)
	b = jsonenc.AppendString(b, r.URI)
	if r.MIMEType != "" {
		b = append(b, `,"mimeType":`...)
		b = jsonenc.AppendString(b, r.MIMEType)
	}
	if r.Blob != "" {
		b = append(b, `,"blob":`...)
		b = jsonenc.AppendString(b, r.Blob)
	} else {
		b = append(b, `,"text":`...)
		b = jsonenc.AppendString(b, r.Text)
	}
	if len(r.Meta) > 0 {
		b = append(b, `,"_meta":`...)
		b = append(b, r.Meta...)
	}
	return append(b, '}')
}

// AppendJSON appends r as a tools/call result object and returns the
// extended slice: content ([] when empty), then the other members that are
// set. StructuredContent and Meta must hold valid JSON when set.
func (r *CallToolResult) AppendJSON(b []byte) []byte {
	b = append(b, `{"content":`...)
	b = AppendContentList(b, r.Content)
	if len(r.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		b = append(b, r.StructuredContent...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if r.ResultType != "" {
		b = append(b, `,"resultType":`...)
		b = jsonenc.AppendString(b, r.ResultType)
	}
	if len(r.Meta) > 0 {
		b = append(b, `,"_meta":`...)
		b = append(b, r.Meta...)
	}
	return append(b, '}')
}

// MarshalJSON encodes r as AppendJSON does; a nil r is null.
func (r *CallToolResult) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	return r.AppendJSON(nil), nil
}

// RawToolCaller calls a tool and returns its whole result; *mcpclient.Client
// implements it.
type RawToolCaller interface {
	CallToolRaw(ctx context.Context, p CallToolParams) (*CallToolResult, error)
}

// CallToolContent calls the tool name with args through c, which must also
// be a RawToolCaller (as *mcpclient.Client is), and returns its whole result: what a
// generated typed MCP client returns for a method whose result is
// *CallToolResult or []Content. A result with isError set yields the
// *runtime.Error the server sent with it, or else a *ToolError.
func CallToolContent(ctx context.Context, c ToolCaller, name string, args any) (*CallToolResult, error) {
	rc, ok := c.(RawToolCaller)
	if !ok {
		return nil, fmt.Errorf("mcp: %T cannot return the content of tool %s: it has no CallToolRaw method", c, name)
	}
	res, err := rc.CallToolRaw(ctx, CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, typedError(NewToolError(name, res))
	}
	return res, nil
}

// CallToolBlock is CallToolContent for a tool that returns one content
// block: it returns the first, and an error when there is none.
func CallToolBlock(ctx context.Context, c ToolCaller, name string, args any) (Content, error) {
	res, err := CallToolContent(ctx, c, name, args)
	if err != nil {
		return Content{}, err
	}
	if len(res.Content) == 0 {
		return Content{}, fmt.Errorf("mcp: tool %s returned no content", name)
	}
	return res.Content[0], nil
}
