package mcp

import (
	"encoding/json"
)

// PromptArgument describes one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	// Description describes this rendering of the prompt, if anything.
	Description string `json:"description,omitempty"`
	// Messages are the prompt's messages, in order.
	Messages []PromptMessage `json:"messages"`
	// Meta is the result's _meta object, if any.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// PromptMessage is one message of a prompt: a role ("user" or "assistant")
// and one content block (text, image, audio, resource link or embedded
// resource).
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Completion is the result of a completion: at most 100 values, best first.
type Completion struct {
	Values []string `json:"values"`
	// Total is the number of matches there are, when known (0: unknown).
	Total int `json:"total,omitempty"`
	// HasMore says there are more matches than Values holds.
	HasMore bool `json:"hasMore,omitempty"`
}

// CompletionRef names what a completion/complete is for: a prompt
// (Type "ref/prompt", Name) or a resource template (Type "ref/resource", URI,
// the template itself).
type CompletionRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// ResourceInfo describes one resource as resources/list lists it.
type ResourceInfo struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        int64           `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Icons (2025-11-25) and Meta, the _meta object (2025-06-18), are nil
	// when absent.
	Icons []Icon          `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// ResourceTemplateInfo describes one template as resources/templates/list
// lists it.
type ResourceTemplateInfo struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Icons (2025-11-25) and Meta, the _meta object (2025-06-18), are nil
	// when absent.
	Icons []Icon          `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// PromptInfo describes one prompt as prompts/list lists it.
type PromptInfo struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	// Icons (2025-11-25) and Meta, the _meta object (2025-06-18), are nil
	// when absent.
	Icons []Icon          `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}
