package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// samplingToolsServer has a tool that samples with a weather tool offered
// to the model, then sends the tool's result back in a second round and
// returns what the model said in the end.
func samplingToolsServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	weather := mcp.ToolInfo{Name: "get_weather", Description: "The weather in a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	srv.AddTools(mcpserver.Tool{Name: "plan", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		ask1 := &mcp.CreateMessageParams{MaxTokens: 50, Tools: []mcp.ToolInfo{weather}, ToolChoice: &mcp.ToolChoice{Mode: "required"},
			Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("Weather in Paris and Rome?")}}}
		r, err := ask.Sample(ctx, ask1)
		if err != nil {
			return nil, err
		}
		var results []mcp.Content
		for _, b := range r.Blocks() {
			if b.Type != mcp.ContentToolUse {
				return nil, fmt.Errorf("block %+v is no tool use", b)
			}
			var in struct{ City string }
			if err := json.Unmarshal(b.Input, &in); err != nil {
				return nil, err
			}
			results = append(results, mcp.ToolResultContent(b.ID, mcp.TextContent(in.City+": sunny")))
		}
		ask2 := *ask1
		ask2.ToolChoice = &mcp.ToolChoice{Mode: "none"}
		ask2.Messages = append(ask1.Messages[:1:1], mcp.SamplingMessage{Role: "assistant", Contents: r.Blocks()},
			mcp.SamplingMessage{Role: "user", Contents: results})
		r2, err := ask.Sample(ctx, &ask2)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"calls": len(results), "stop": r.StopReason, "answer": r2.Content.Text})
	}})
	return srv
}

// model answers the first round with two tool uses and the second, which
// carries their results, with text naming them.
func model(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if len(p.Tools) != 1 || p.Tools[0].Name != "get_weather" || p.ToolChoice == nil {
		return nil, fmt.Errorf("tools %+v, choice %+v", p.Tools, p.ToolChoice)
	}
	if p.ToolChoice.Mode == "required" {
		return &mcp.CreateMessageResult{Role: "assistant", Model: "m", StopReason: "toolUse", Contents: []mcp.Content{
			mcp.ToolUseContent("u1", "get_weather", json.RawMessage(`{"city":"Paris"}`)),
			mcp.ToolUseContent("u2", "get_weather", json.RawMessage(`{"city":"Rome"}`)),
		}}, nil
	}
	last := p.Messages[len(p.Messages)-1].Blocks()
	if len(p.Messages) != 3 || len(last) != 2 || last[0].Type != mcp.ContentToolResult || last[1].ToolUseID != "u2" {
		return nil, fmt.Errorf("second round messages %+v", p.Messages)
	}
	return &mcp.CreateMessageResult{Role: "assistant", Model: "m", StopReason: "endTurn",
		Content: mcp.TextContent(last[0].Content[0].Text + "; " + last[1].Content[0].Text)}, nil
}

// TestSamplingWithTools: a server's ask.Sample offers tools and a tool
// choice, the client's OnSample (declaring sampling.tools) answers with two
// tool_use blocks, the server decodes them and answers with tool_result
// blocks, in 2025-11-25 and 2026-07-28; an older revision, or a client that
// did not declare sampling.tools, is refused with -32021.
func TestSamplingWithTools(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			c, err := mcpclient.ConnectTransport(ctx, samplingToolsServer().InProcess(), mcpclient.Options{ProtocolVersion: version, OnSample: model, SampleTools: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var out struct {
				Calls        int
				Stop, Answer string
			}
			if err := c.CallTool(ctx, "plan", nil, &out); err != nil || out.Calls != 2 || out.Stop != "toolUse" || out.Answer != "Paris: sunny; Rome: sunny" {
				t.Errorf("plan = %+v, %v", out, err)
			}
		})
	}
	for _, tc := range []struct {
		version string
		tools   bool
	}{{mcp.Version20250618, true}, {mcp.Version20251125, false}, {mcp.Version20260728, false}} {
		t.Run(fmt.Sprintf("refused/%s/tools=%v", tc.version, tc.tools), func(t *testing.T) {
			c, err := mcpclient.ConnectTransport(ctx, samplingToolsServer().InProcess(), mcpclient.Options{ProtocolVersion: tc.version, OnSample: model, SampleTools: tc.tools})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = c.CallTool(ctx, "plan", nil, nil)
			var re *runtime.Error
			if !errors.As(err, &re) || re.Code != mcp.CodeMissingClientCapability || string(re.Data) != `{"requiredCapabilities":{"sampling":{"tools":{}}}}` {
				t.Errorf("plan: %v (%+v), want -32021 naming sampling.tools", err, re)
			}
		})
	}
}

// TestSamplingMessageJSON: one block travels as an object, several as an
// array, and both decode.
func TestSamplingMessageJSON(t *testing.T) {
	one, _ := json.Marshal(mcp.SamplingMessage{Role: "user", Content: mcp.TextContent("hi")})
	two, _ := json.Marshal(mcp.SamplingMessage{Role: "assistant", Contents: []mcp.Content{mcp.TextContent("a"), mcp.ToolUseContent("u", "t", json.RawMessage(`{}`))}})
	if string(one) != `{"role":"user","content":{"type":"text","text":"hi"}}` ||
		string(two) != `{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","name":"t","id":"u","input":{}}]}` {
		t.Errorf("encoded %s and %s", one, two)
	}
	var m mcp.SamplingMessage
	if err := json.Unmarshal(two, &m); err != nil || len(m.Blocks()) != 2 || m.Content.Text != "a" || m.Blocks()[1].Name != "t" {
		t.Errorf("decoded %+v, %v", m, err)
	}
	if err := json.Unmarshal(one, &m); err != nil || len(m.Blocks()) != 1 || m.Content.Text != "hi" || m.Contents != nil {
		t.Errorf("decoded %+v, %v", m, err)
	}
}
