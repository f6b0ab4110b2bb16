package mcp

import "encoding/json"

// ElicitParams is a request for information from the user
// (elicitation/create). Form mode (Mode "" or "form") asks for the flat
// object RequestedSchema describes (primitive properties only); URL mode
// (Mode "url") sends the user to URL, for anything sensitive, which form
// mode must never ask for. ElicitationID names a URL-mode elicitation in
// 2025-11-25, which requires one (Elicit makes a random one when it is
// empty); 2026-07-28 has none, and correlates through the requestState.
// Meta, when set, is sent as the request's _meta.
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// ElicitResult is the user's answer: Action is "accept" (Content holds the
// values, a JSON object, in form mode), "decline" or "cancel".
type ElicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// CreateMessageParams asks the client's model for a message
// (sampling/createMessage).
type CreateMessageParams struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences json.RawMessage   `json:"modelPreferences,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	Metadata         json.RawMessage   `json:"metadata,omitempty"`
	// Tools are the tools the model may call (2025-11-25 and later; the
	// client must have declared sampling.tools): their name, description
	// and input schema, as tools/list describes tools.
	Tools []ToolInfo `json:"tools,omitempty"`
	// ToolChoice says how the model uses Tools; nil is mode "auto".
	ToolChoice *ToolChoice     `json:"toolChoice,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation. Content is its
// content block; a message of several blocks (2025-11-25: tool uses, tool
// results) holds them all in Contents, and then Content is the first when
// decoded and ignored when encoded. Blocks returns the blocks either way.
type SamplingMessage struct {
	Role     string
	Content  Content
	Contents []Content
	Meta     json.RawMessage
}

// CreateMessageResult is the model's message: Content, or Contents when it
// has several blocks (as SamplingMessage). A model that calls tools answers
// tool_use blocks with StopReason "toolUse".
type CreateMessageResult struct {
	Role       string
	Content    Content
	Contents   []Content
	Model      string
	StopReason string
	Meta       json.RawMessage
}

// Root is one root the client exposes (roots/list): a file:// URI and an
// optional name.
type Root struct {
	URI  string          `json:"uri"`
	Name string          `json:"name,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}
