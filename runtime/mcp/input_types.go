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
	Meta             json.RawMessage   `json:"_meta,omitempty"`
}

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// CreateMessageResult is the model's message.
type CreateMessageResult struct {
	Role       string          `json:"role"`
	Content    Content         `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// Root is one root the client exposes (roots/list): a file:// URI and an
// optional name.
type Root struct {
	URI  string          `json:"uri"`
	Name string          `json:"name,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}
