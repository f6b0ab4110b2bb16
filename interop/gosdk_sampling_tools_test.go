//lint:file-ignore SA1019 sampling is deprecated in 2026-07-28 but still served, and tested here.

package interop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The model's answers in TestGoSDKSamplingWithTools, and what the tool must
// make of them.
const (
	weatherAnswer   = "Paris is sunny and Oslo has snow."
	wantToolsResult = "LLM response: tool uses [toolu_paris get_weather(city=Paris)=sunny, 21 °C; " +
		"toolu_oslo get_weather(city=Oslo)=snow, -3 °C]; interop-model said (endTurn): " + weatherAnswer
)

// TestGoSDKSamplingWithTools drives examples/conformance's
// test_sampling_with_tools with the official Go SDK client, whose
// CreateMessageWithToolsHandler declares sampling.tools: the client receives
// the tool's tools and toolChoice, answers with two tool_use blocks, receives
// their tool_result blocks in the next request, and answers in text; the
// tool's result shows what it decoded from each tool use. Over stdio and
// Streamable HTTP, pinned to 2025-11-25 (sampling/createMessage requests)
// and in the SDK's default 2026-07-28 (input_required rounds). A client
// with sampling but not sampling.tools is refused.
func TestGoSDKSamplingWithTools(t *testing.T) {
	for _, transport := range []string{"stdio", "streamable"} {
		for _, c := range []struct{ mode, pin, want string }{
			{"legacy", "2025-11-25", "2025-11-25"},
			{"default", "", "2026-07-28"},
		} {
			t.Run(transport+"/"+c.mode, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				m := &toolModel{}
				cs := connectFeatures(ctx, t, transport, c.pin, c.want, &mcp.ClientOptions{CreateMessageWithToolsHandler: m.answer})
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_sampling_with_tools",
					Arguments: map[string]any{"question": "What is the weather in Paris and Oslo?"}})
				if err != nil {
					t.Fatalf("test_sampling_with_tools: %v", err)
				}
				var w wireResult
				if err := remarshal(res, &w); err != nil || w.IsError {
					t.Fatalf("test_sampling_with_tools: %s (%v)", brief(res), err)
				}
				if got := w.text(); got != wantToolsResult {
					t.Errorf("test_sampling_with_tools answered\n%q, want\n%q", got, wantToolsResult)
				}
				m.check(t)
			})
		}
		t.Run(transport+"/without-sampling-tools", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var asked sync.Map
			cs := connectFeatures(ctx, t, transport, "2025-11-25", "2025-11-25", &mcp.ClientOptions{
				//lint:ignore SA1019 sampling is deprecated in 2026-07-28 but still served, and tested here
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					asked.Store(req.Params.Messages[0], true)
					return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: "no"}, Model: "interop-model"}, nil
				},
			})
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_sampling_with_tools",
				Arguments: map[string]any{"question": "What is the weather in Paris?"}})
			var werr *jsonrpc.Error
			switch {
			case errors.As(err, &werr):
				if werr.Code != -32021 {
					t.Errorf("refused with %d %q, want -32021 (missing client capability)", werr.Code, werr.Message)
				}
			case err != nil:
				t.Fatalf("test_sampling_with_tools: %v, want a -32021 error", err)
			default:
				t.Errorf("test_sampling_with_tools answered %s to a client without sampling.tools, want -32021", brief(res))
			}
			asked.Range(func(k, _ any) bool {
				t.Errorf("the client was asked %s", brief(k))
				return false
			})
		})
	}
}

// connectFeatures connects the Go SDK client with opts to a fresh feature
// server over transport, pinned to pin ("" is the SDK's default), and checks
// the revision agreed is want.
func connectFeatures(ctx context.Context, t *testing.T, transport, pin, want string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	var tr mcp.Transport
	if transport == "stdio" {
		tr = &mcp.CommandTransport{Command: featuresCommand(t), TerminateDuration: 2 * time.Second}
	} else {
		tr = &mcp.StreamableClientTransport{Endpoint: startFeaturesHTTP(t).url}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk-sampling-tools", Version: "1"}, opts)
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("protocol version %q, want %q", got, want)
	}
	return cs
}

// toolModel plays the client's model: asked the first time, it calls
// get_weather for Paris and Oslo at once; asked again with their results,
// it answers in text. It records each request.
type toolModel struct {
	mu   sync.Mutex
	reqs []*mcp.CreateMessageWithToolsParams
}

func (m *toolModel) answer(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req.Params)
	last := req.Params.Messages[len(req.Params.Messages)-1]
	if _, ok := last.Content[0].(*mcp.ToolResultContent); ok {
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "interop-model", StopReason: "endTurn",
			Content: []mcp.Content{&mcp.TextContent{Text: weatherAnswer}}}, nil
	}
	return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "interop-model", StopReason: "toolUse",
		Content: []mcp.Content{
			&mcp.ToolUseContent{ID: "toolu_paris", Name: "get_weather", Input: map[string]any{"city": "Paris"}},
			&mcp.ToolUseContent{ID: "toolu_oslo", Name: "get_weather", Input: map[string]any{"city": "Oslo"}},
		}}, nil
}

// check verifies what the model was asked: twice (in 2026-07-28 the SDK
// may answer a round's question again on the retry of the next, so at least
// twice), the tools and toolChoice each time, and in the last request the
// question, its tool uses and their results, matched by id.
func (m *toolModel) check(t *testing.T) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reqs) < 2 {
		t.Fatalf("the model was asked %d times, want 2", len(m.reqs))
	}
	for i, p := range m.reqs {
		if len(p.Tools) != 1 || p.Tools[0].Name != "get_weather" || !strings.Contains(p.Tools[0].Description, "weather") {
			t.Errorf("request %d: tools %s, want get_weather alone", i, brief(p.Tools))
			continue
		}
		var schema struct {
			Type     string   `json:"type"`
			Required []string `json:"required"`
		}
		if err := remarshal(p.Tools[0].InputSchema, &schema); err != nil || schema.Type != "object" || !slices.Equal(schema.Required, []string{"city"}) {
			t.Errorf("request %d: get_weather's inputSchema %s (%v)", i, brief(p.Tools[0].InputSchema), err)
		}
		if p.ToolChoice == nil || p.ToolChoice.Mode != "auto" {
			t.Errorf("request %d: toolChoice %s, want mode auto", i, brief(p.ToolChoice))
		}
	}
	last := m.reqs[len(m.reqs)-1]
	if len(last.Messages) != 3 {
		t.Fatalf("the last request has %d messages, want 3 (question, tool uses, results): %s", len(last.Messages), brief(last.Messages))
	}
	if q, ok := last.Messages[0].Content[0].(*mcp.TextContent); !ok || last.Messages[0].Role != "user" || !strings.Contains(q.Text, "Paris and Oslo") {
		t.Errorf("first message %s, want the user's question", brief(last.Messages[0]))
	}
	uses := last.Messages[1]
	if uses.Role != "assistant" || len(uses.Content) != 2 {
		t.Fatalf("second message %s, want the assistant's two tool uses", brief(uses))
	}
	for i, want := range []struct{ id, city string }{{"toolu_paris", "Paris"}, {"toolu_oslo", "Oslo"}} {
		u, ok := uses.Content[i].(*mcp.ToolUseContent)
		if !ok || u.ID != want.id || u.Name != "get_weather" || u.Input["city"] != want.city {
			t.Errorf("tool use %d sent back as %s", i, brief(uses.Content[i]))
		}
	}
	results := last.Messages[2]
	if results.Role != "user" || len(results.Content) != 2 {
		t.Fatalf("third message %s, want the user's two tool results", brief(results))
	}
	for i, want := range []struct{ id, text string }{{"toolu_paris", "sunny, 21 °C"}, {"toolu_oslo", "snow, -3 °C"}} {
		r, ok := results.Content[i].(*mcp.ToolResultContent)
		if !ok || r.ToolUseID != want.id || r.IsError || len(r.Content) != 1 {
			t.Errorf("tool result %d: %s", i, brief(results.Content[i]))
			continue
		}
		if txt, ok := r.Content[0].(*mcp.TextContent); !ok || txt.Text != want.text {
			t.Errorf("tool result %d holds %s, want %q", i, brief(r.Content[0]), want.text)
		}
	}
}
