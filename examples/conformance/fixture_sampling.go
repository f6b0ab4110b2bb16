package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
)

// weatherTool is the tool test_sampling_with_tools offers the client's model.
var weatherTool = mcp.ToolInfo{
	Name:        "get_weather",
	Description: "Returns the current weather in a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"The city's name."}},"required":["city"]}`),
}

// weather is what get_weather knows; any other city is a tool error.
var weather = map[string]string{
	"Paris": "sunny, 21 °C",
	"Oslo":  "snow, -3 °C",
}

// samplingToolRounds bounds the sampling requests of one call.
const samplingToolRounds = 3

func (f *fixture) SamplingWithTools(ctx context.Context, question string) (mcp.Content, error) {
	msgs := []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent(question)}}
	var calls []string
	for range samplingToolRounds {
		res, err := ask.Sample(ctx, &mcp.CreateMessageParams{
			Messages:   msgs,
			MaxTokens:  200,
			Tools:      []mcp.ToolInfo{weatherTool},
			ToolChoice: &mcp.ToolChoice{Mode: "auto"},
		})
		if err != nil {
			return mcp.Content{}, err
		}
		var results []mcp.Content
		var text []string
		for _, b := range res.Blocks() {
			switch b.Type {
			case mcp.ContentToolUse:
				r, call := useTool(b)
				results = append(results, r)
				calls = append(calls, call)
			case mcp.ContentText:
				text = append(text, b.Text)
			}
		}
		if len(results) == 0 {
			return mcp.TextContent(fmt.Sprintf("%stool uses [%s]; %s said (%s): %s",
				samplingTitle, strings.Join(calls, "; "), res.Model, res.StopReason, strings.Join(text, " "))), nil
		}
		msgs = append(msgs,
			mcp.SamplingMessage{Role: "assistant", Contents: res.Blocks()},
			mcp.SamplingMessage{Role: "user", Contents: results})
	}
	return mcp.Content{}, errors.New("the model still uses tools after three rounds")
}

// useTool runs one tool_use block of the model and returns the tool_result
// block that answers it, and the call as decoded: id, name and city.
func useTool(use mcp.Content) (mcp.Content, string) {
	var in struct {
		City string `json:"city"`
	}
	call := fmt.Sprintf("%s %s(%s)", use.ID, use.Name, use.Input)
	if use.Name != weatherTool.Name {
		return toolError(use.ID, "no tool named "+use.Name), call
	}
	if err := json.Unmarshal(use.Input, &in); err != nil || in.City == "" {
		return toolError(use.ID, "get_weather needs {\"city\": string}"), call
	}
	w, ok := weather[in.City]
	if !ok {
		return toolError(use.ID, "no weather for "+in.City), call
	}
	return mcp.ToolResultContent(use.ID, mcp.TextContent(w)), fmt.Sprintf("%s %s(city=%s)=%s", use.ID, use.Name, in.City, w)
}

func toolError(id, msg string) mcp.Content {
	r := mcp.ToolResultContent(id, mcp.TextContent(msg))
	r.IsError = true
	return r
}
