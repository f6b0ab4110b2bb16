package main

import (
	"context"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

//go:generate go tool rpcgen --openrpc conformance.openrpc.json --ts conformance_client.ts --docs conformance_api.md --api-version 1.0.0 Conformance

// Conformance is the server the official MCP conformance suite
// (@modelcontextprotocol/conformance) tests: each method is a tool one of
// its scenarios calls, under the name the scenario expects. Results that are
// not data (text for a model, images, audio, embedded resources) are MCP
// content blocks, which the tools return as they are.
//
//rpcgen:service name=conformance
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

	// JSONSchema greets a person at an address; its input schema shows
	// JSON Schema 2020-12 features: "$schema", "$defs" and "$ref", and
	// additionalProperties false.
	//
	//rpcgen:tool name=json_schema_2020_12_tool readonly openworld=false
	//rpcgen:schema dialect defs
	JSONSchema(ctx context.Context, p person) (mcp.Content, error)

	// Reconnection closes the HTTP stream carrying its call, then answers:
	// the client gets the answer by reconnecting (SSE polling).
	//
	//rpcgen:tool name=test_reconnection readonly openworld=false
	Reconnection(ctx context.Context) (mcp.Content, error)
}

// person is the argument object of json_schema_2020_12_tool.
type person struct {
	// Name of the person.
	Name string `json:"name,omitempty"`
	// Address of the person.
	Address *address `json:"address,omitempty"`
}

// address is a postal address: its schema is the "address" entry of
// json_schema_2020_12_tool's "$defs".
type address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city,omitempty"`
}
