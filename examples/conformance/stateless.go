package main

import (
	"context"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

//go:generate go tool rpcgen Stateless

// Stateless is the part of the conformance server the 2026-07-28 scenarios
// ask for: the input-required-result tools and prompt (SEP-2322), which ask
// the client for input under the keys the scenarios name, and the
// diagnostic tools of the server-stateless scenario (SEP-2575). Like the
// tools of Conformance, they ask through their context (package
// runtime/mcp/ask), so in a 2025 session the same code sends the client
// requests and waits for the answers.
//
//rpcgen:service name=stateless
type Stateless interface {
	// InputElicitation asks the user's name (key "user_name") and greets
	// them.
	//
	//rpcgen:tool name=test_input_required_result_elicitation readonly openworld=false
	InputElicitation(ctx context.Context) (mcp.Content, error)

	// InputSampling asks the client's model for the capital of France (key
	// "capital_question") and returns its answer.
	//
	//rpcgen:tool name=test_input_required_result_sampling readonly openworld=false
	InputSampling(ctx context.Context) (mcp.Content, error)

	// InputListRoots asks the client for its roots (key "client_roots") and
	// lists them.
	//
	//rpcgen:tool name=test_input_required_result_list_roots readonly openworld=false
	InputListRoots(ctx context.Context) (mcp.Content, error)

	// InputRequestState asks the user to confirm (key "confirm") and says
	// "state-ok" when the answer came with the requestState the server
	// issued for this call, verified.
	//
	//rpcgen:tool name=test_input_required_result_request_state readonly openworld=false
	InputRequestState(ctx context.Context) (mcp.Content, error)

	// InputMultiple asks three things in one round: the user's name
	// ("user_name"), a greeting from the model ("greeting") and the
	// client's roots ("client_roots").
	//
	//rpcgen:tool name=test_input_required_result_multiple_inputs readonly openworld=false
	InputMultiple(ctx context.Context) (mcp.Content, error)

	// InputMultiRound asks the user's name ("step1"), and once it has it,
	// their favourite colour ("step2"): two rounds.
	//
	//rpcgen:tool name=test_input_required_result_multi_round readonly openworld=false
	InputMultiRound(ctx context.Context) (mcp.Content, error)

	// InputTamperedState asks the user to confirm ("confirm"); a retry
	// whose requestState was altered is refused before it runs.
	//
	//rpcgen:tool name=test_input_required_result_tampered_state readonly openworld=false
	InputTamperedState(ctx context.Context) (mcp.Content, error)

	// InputCapabilities asks the user (elicitation) and the model (sampling)
	// for a word, each only when the client declared the capability.
	//
	//rpcgen:tool name=test_input_required_result_capabilities readonly openworld=false
	InputCapabilities(ctx context.Context) (mcp.Content, error)

	// InputPrompt is a prompt that asks the user what context it should use
	// ("user_context") and holds the answer.
	//
	//rpcgen:prompt name=test_input_required_result_prompt title="Prompt asking for input"
	InputPrompt(ctx context.Context) (string, error)

	// MissingCapability asks the client's model a question, so a client
	// that did not declare sampling gets error -32021 naming it.
	//
	//rpcgen:tool name=test_missing_capability readonly openworld=false
	MissingCapability(ctx context.Context) (mcp.Content, error)

	// StreamingElicitation reports progress while it works, then asks the
	// user for a word: in 2026-07-28 the question is the result
	// (input_required), never a request of the server's own.
	//
	//rpcgen:tool name=test_streaming_elicitation readonly openworld=false
	StreamingElicitation(ctx context.Context) (mcp.Content, error)

	// Logging logs two messages at level info; they reach only a client
	// that asked for logging (in 2026-07-28, a logLevel in the request's
	// _meta).
	//
	//rpcgen:tool name=test_logging_tool readonly openworld=false
	Logging(ctx context.Context) (mcp.Content, error)

	// Forecast gives the weather of a region. Its region and days arguments
	// travel in the Mcp-Param-Region and Mcp-Param-Days HTTP headers too
	// (x-mcp-header, stated in forecast.schema.json), so that a proxy can
	// route on them without reading the body; the server checks that each
	// header agrees with the body.
	//
	//rpcgen:tool name=test_forecast_by_region readonly openworld=false
	Forecast(ctx context.Context, q forecastQuery) (mcp.Content, error)

	// TriggerToolChange adds a tool, so the client hears
	// notifications/tools/list_changed.
	//
	//rpcgen:tool name=test_trigger_tool_change idempotent=false openworld=false
	TriggerToolChange(ctx context.Context) (mcp.Content, error)

	// TriggerPromptChange adds a prompt, so the client hears
	// notifications/prompts/list_changed.
	//
	//rpcgen:tool name=test_trigger_prompt_change idempotent=false openworld=false
	TriggerPromptChange(ctx context.Context) (mcp.Content, error)
}

// forecastQuery is what test_forecast_by_region is asked.
//
//rpcgen:schema file=forecast.schema.json
type forecastQuery struct {
	// Region is the region to forecast, such as "us-west1".
	Region string `json:"region"`
	// Days is how many days ahead to forecast (1 when left out).
	Days int `json:"days,omitempty"`
	// Detail says what to include, such as "wind".
	Detail string `json:"detail,omitempty"`
}
