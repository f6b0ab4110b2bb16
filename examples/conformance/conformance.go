package main

import (
	"context"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

//go:generate go tool rpcgen --openrpc conformance.openrpc.json --ts conformance_client.ts --docs conformance_api.md --api-version 1.0.0 Conformance

// Conformance is the server the official MCP conformance suite
// (@modelcontextprotocol/conformance) tests: each method is a tool, a
// resource, a prompt or a completion one of its scenarios asks for, under the
// name (or URI) the scenario expects. Results that are not data (text for a
// model, images, audio, embedded resources) are MCP content blocks, which the
// tools return as they are. The tools that ask the client for something
// (sampling, elicitation) do it through their context, with the same code for
// every protocol revision.
//
//rpcgen:service name=conformance
//rpcgen:skills dir=skills
type Conformance interface {
	// SimpleText returns a simple text response.
	//
	//rpcgen:tool name=test_simple_text readonly openworld=false
	SimpleText(ctx context.Context) (mcp.Content, error)

	// Image returns a PNG image: one red pixel.
	//
	//rpcgen:tool name=test_image_content readonly openworld=false
	Image(ctx context.Context) (mcp.Content, error)

	// Audio returns a short WAV sound.
	//
	//rpcgen:tool name=test_audio_content readonly openworld=false
	Audio(ctx context.Context) (mcp.Content, error)

	// EmbeddedResource returns a text resource embedded in the result.
	//
	//rpcgen:tool name=test_embedded_resource readonly openworld=false
	EmbeddedResource(ctx context.Context) (mcp.Content, error)

	// MultipleContentTypes returns text, an image and an embedded resource.
	//
	//rpcgen:tool name=test_multiple_content_types readonly openworld=false
	MultipleContentTypes(ctx context.Context) ([]mcp.Content, error)

	// ErrorHandling always fails, so the client sees a tool error result.
	//
	//rpcgen:tool name=test_error_handling readonly openworld=false
	ErrorHandling(ctx context.Context) (mcp.Content, error)

	// WithProgress reports progress 0, 50 and 100 of 100, about 50 ms
	// apart, when the caller asks for progress.
	//
	//rpcgen:tool name=test_tool_with_progress readonly openworld=false
	WithProgress(ctx context.Context) (mcp.Content, error)

	// WithLogging sends three log messages at level info, about 50 ms
	// apart, while it runs.
	//
	//rpcgen:tool name=test_tool_with_logging readonly openworld=false
	WithLogging(ctx context.Context) (mcp.Content, error)

	// JSONSchema greets a person at an address; its input schema, stated
	// in person.schema.json, shows JSON Schema 2020-12 features Go types
	// cannot say: "$schema", "$defs" with an "$anchor", "$ref", "allOf" of
	// "anyOf", "if"/"then"/"else", and additionalProperties false.
	//
	//rpcgen:tool name=json_schema_2020_12_tool readonly openworld=false
	JSONSchema(ctx context.Context, p person) (mcp.Content, error)

	// Reconnection closes the HTTP stream carrying its call, then answers:
	// the client gets the answer by reconnecting (SSE polling).
	//
	//rpcgen:tool name=test_reconnection readonly openworld=false
	Reconnection(ctx context.Context) (mcp.Content, error)

	// Sampling asks the client's model to answer a prompt
	// (sampling/createMessage, at most 100 tokens) and returns its answer.
	//
	// prompt: what to ask the model.
	//
	//rpcgen:tool name=test_sampling readonly openworld=false
	Sampling(ctx context.Context, prompt string) (mcp.Content, error)

	// SamplingWithTools asks the client's model a question, offering it the
	// tool get_weather (sampling with tools, 2025-11-25: the client must have
	// declared sampling.tools). Each tool use the model answers with is run
	// here and its result sent back as a tool_result block, until the model
	// answers in text (three rounds at most); the result lists the tool uses
	// as decoded and the model's last words.
	//
	// question: what to ask the model.
	//
	//rpcgen:tool name=test_sampling_with_tools readonly openworld=false
	SamplingWithTools(ctx context.Context, question string) (mcp.Content, error)

	// Elicitation asks the user for a username and an email address
	// (elicitation/create, form mode) and returns the answer.
	//
	// message: what to tell the user.
	//
	//rpcgen:tool name=test_elicitation readonly openworld=false
	Elicitation(ctx context.Context, message string) (mcp.Content, error)

	// ElicitationDefaults asks the user for a form whose fields all have
	// default values: a string, an integer, a number, an enum and a boolean
	// (SEP-1034).
	//
	//rpcgen:tool name=test_elicitation_sep1034_defaults readonly openworld=false
	ElicitationDefaults(ctx context.Context) (mcp.Content, error)

	// ElicitationEnums asks the user for a form with the five kinds of enum
	// field: untitled and titled single-select, the legacy enumNames form,
	// untitled and titled multi-select (SEP-1330).
	//
	//rpcgen:tool name=test_elicitation_sep1330_enums readonly openworld=false
	ElicitationEnums(ctx context.Context) (mcp.Content, error)

	// TouchWatchedResource changes test://watched-resource: every client
	// subscribed to it is told (notifications/resources/updated).
	//
	//rpcgen:tool name=test_touch_watched_resource idempotent=false openworld=false
	TouchWatchedResource(ctx context.Context) (mcp.Content, error)

	// StaticText is a fixed text resource.
	//
	//rpcgen:resource uri=test://static-text mime=text/plain name=static_text title="Static text"
	StaticText(ctx context.Context) (string, error)

	// StaticBinary is a fixed binary resource: a PNG image of one red pixel.
	//
	//rpcgen:resource uri=test://static-binary mime=image/png name=static_binary title="Static binary"
	StaticBinary(ctx context.Context) ([]byte, error)

	// TemplateData is the record with the given id, as JSON.
	//
	// id: the record's id.
	//
	//rpcgen:resource uri=test://template/{id}/data mime=application/json name=template_data title="Record by id"
	TemplateData(ctx context.Context, id string) (record, error)

	// WatchedResource is a text resource that test_touch_watched_resource
	// changes; subscribe to it to hear about each change.
	//
	//rpcgen:resource uri=test://watched-resource mime=text/plain name=watched_resource title="Watched resource"
	WatchedResource(ctx context.Context) (string, error)

	// SimplePrompt is a prompt without arguments: one user message.
	//
	//rpcgen:prompt name=test_simple_prompt title="Simple prompt"
	SimplePrompt(ctx context.Context) (string, error)

	// PromptWithArguments is a prompt whose message holds its two arguments.
	//
	// arg1: the first argument.
	// arg2: the second argument.
	//
	//rpcgen:prompt name=test_prompt_with_arguments title="Prompt with arguments"
	PromptWithArguments(ctx context.Context, arg1, arg2 string) (string, error)

	// PromptWithEmbeddedResource is a prompt that embeds the resource it is
	// given, followed by a question about it.
	//
	// resourceUri: the URI of the resource to embed.
	//
	//rpcgen:prompt name=test_prompt_with_embedded_resource title="Prompt with an embedded resource"
	PromptWithEmbeddedResource(ctx context.Context, resourceUri string) ([]mcp.PromptMessage, error)

	// PromptWithImage is a prompt holding an image (one red pixel) and a
	// question about it.
	//
	//rpcgen:prompt name=test_prompt_with_image title="Prompt with an image"
	PromptWithImage(ctx context.Context) ([]mcp.PromptMessage, error)

	// CompleteArg1 suggests values for arg1 of test_prompt_with_arguments:
	// the known values that start with what the user typed.
	//
	//rpcgen:complete prompt=test_prompt_with_arguments arg=arg1
	CompleteArg1(ctx context.Context, value string) ([]string, error)

	// CompleteRecordID suggests record ids for test://template/{id}/data:
	// the known ids that start with what the user typed, and how many
	// there are.
	//
	//rpcgen:complete resource=test://template/{id}/data arg=id
	CompleteRecordID(ctx context.Context, value string, resolved map[string]string) (*mcp.Completion, error)
}

// record is what a test://template/{id}/data resource holds.
type record struct {
	// ID is the id the URI named.
	ID string `json:"id"`
	// Name is the record's name.
	Name string `json:"name"`
}

// person is the argument object of json_schema_2020_12_tool, and the
// contact details to reach them by: a phone number when ContactMethod is
// "phone", else an email address (which person.schema.json says, and the
// generated decoder does not check).
//
//rpcgen:schema file=person.schema.json
type person struct {
	// Name of the person.
	Name string `json:"name,omitempty"`
	// Address of the person.
	Address *address `json:"address,omitempty"`
	// ContactMethod is "phone" or "email".
	ContactMethod string `json:"contactMethod,omitempty"`
	// Phone is the number to call.
	Phone string `json:"phone,omitempty"`
	// Email is the address to write to.
	Email string `json:"email,omitempty"`
}

// address is a postal address: its schema is the "address" entry of
// json_schema_2020_12_tool's "$defs".
type address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city,omitempty"`
}
