package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// statelessHost answers the questions of the Stateless tools as a user, a
// model and a client with one root would, and records list changes.
type statelessHost struct {
	mu      sync.Mutex
	changed []string
}

func (h *statelessHost) options(version string) mcpclient.Options {
	return mcpclient.Options{
		ProtocolVersion: version,
		OnElicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			var s struct{ Properties map[string]json.RawMessage }
			json.Unmarshal(p.RequestedSchema, &s)
			values := map[string]any{"name": "Ada", "color": "blue", "ok": true, "context": "the tests", "word": "yes"}
			content := map[string]any{}
			for k := range s.Properties {
				content[k] = values[k]
			}
			b, _ := json.Marshal(content)
			return &mcp.ElicitResult{Action: "accept", Content: b}, nil
		},
		OnSample: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			answer := map[string]string{"What is the capital of France?": "Paris", "Generate a greeting": "Hi", "Say a word": "blue"}[p.Messages[0].Content.Text]
			return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.TextContent(answer), Model: "m", StopReason: "endTurn"}, nil
		},
		Roots: func(context.Context) ([]mcp.Root, error) {
			return []mcp.Root{{URI: "file:///work", Name: "work"}}, nil
		},
		OnListChanged: func(method string) {
			h.mu.Lock()
			h.changed = append(h.changed, method)
			h.mu.Unlock()
		},
	}
}

func connectWith(t *testing.T, opts mcpclient.Options) *mcpclient.Client {
	t.Helper()
	srv := newServer(time.Millisecond, slog.New(slog.DiscardHandler))
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestStatelessTools: each tool, asked in a 2025 session (requests to the
// client) and in 2026-07-28 (input_required results the client retries),
// ends with what its questions were answered.
func TestStatelessTools(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			c := connectWith(t, new(statelessHost).options(version))
			s := NewStatelessMCPClient(c)
			stateOK := "Confirmed (ok=true), but the answer came without the requestState."
			if version == mcp.Version20260728 {
				stateOK = "state-ok: the requestState verified; confirmed (ok=true)."
			}
			for name, tc := range map[string]struct {
				call func(context.Context) (mcp.Content, error)
				want string
			}{
				"elicitation":   {s.InputElicitation, "Hello, Ada!"},
				"sampling":      {s.InputSampling, "The model says: Paris"},
				"roots":         {s.InputListRoots, "The client's roots: file:///work (work)"},
				"request state": {s.InputRequestState, stateOK},
				"multiple":      {s.InputMultiple, "Hi, Ada! Your roots: file:///work (work)."},
				"multi-round":   {s.InputMultiRound, "Ada likes blue."},
				"tampered":      {s.InputTamperedState, "Confirmed (ok=true)."},
				"capabilities":  {s.InputCapabilities, "the user said yes; the model said blue."},
				"missing":       {s.MissingCapability, "The model says: Paris"},
				"streaming":     {s.StreamingElicitation, "You added: yes"},
				"logging":       {s.Logging, "Logged two messages at level info."},
			} {
				got, err := tc.call(ctx)
				if err != nil || got.Text != tc.want {
					t.Errorf("%s: %q, %v; want %q", name, got.Text, err, tc.want)
				}
			}
			if got, err := s.Forecast(ctx, forecastQuery{Region: "us-west1", Days: 3, Detail: "wind"}); err != nil || got.Text != "Sunny in us-west1 for the next 3 day(s), wind light." {
				t.Errorf("forecast: %q, %v", got.Text, err)
			}
			res, err := c.GetPrompt(ctx, "test_input_required_result_prompt", nil)
			if err != nil || len(res.Messages) != 1 || res.Messages[0].Content.Text != "Answer the question using this context: the tests" {
				t.Errorf("prompt: %+v, %v", res, err)
			}
		})
	}
}

// TestStatelessCapabilities: the tools ask only for what the client
// declared; test_missing_capability needs sampling.
func TestStatelessCapabilities(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			opts := new(statelessHost).options(version)
			opts.OnElicit = nil
			s := NewStatelessMCPClient(connectWith(t, opts))
			if got, err := s.InputCapabilities(ctx); err != nil || got.Text != "the model said blue." {
				t.Errorf("capabilities without elicitation: %q, %v", got.Text, err)
			}
			opts.OnSample = nil
			s = NewStatelessMCPClient(connectWith(t, opts))
			_, err := s.MissingCapability(ctx)
			wantCode(t, "test_missing_capability without sampling", err, mcp.CodeMissingClientCapability)
			_, err = s.InputCapabilities(ctx)
			wantCode(t, "capabilities with neither", err, mcp.CodeMissingClientCapability)
		})
	}
}

// TestTriggers: the trigger tools add a tool and a prompt, which the lists
// then hold, and a legacy client hears of each.
func TestTriggers(t *testing.T) {
	ctx := context.Background()
	h := new(statelessHost)
	c := connectWith(t, h.options(mcp.Version20251125))
	s := NewStatelessMCPClient(c)
	if got, err := s.TriggerToolChange(ctx); err != nil || got.Text != "Added the tool test_added_tool_1." {
		t.Fatalf("TriggerToolChange: %q, %v", got.Text, err)
	}
	if got, err := s.TriggerPromptChange(ctx); err != nil || got.Text != "Added the prompt test_added_prompt_1." {
		t.Fatalf("TriggerPromptChange: %q, %v", got.Text, err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil || !slices.ContainsFunc(tools, func(t mcp.ToolInfo) bool { return t.Name == "test_added_tool_1" }) {
		t.Errorf("tools after the trigger: %v, %v", tools, err)
	}
	if res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "test_added_tool_1"}); err != nil || !strings.Contains(string(res.StructuredContent), "answers") {
		t.Errorf("the added tool: %+v, %v", res, err)
	}
	if _, err := c.GetPrompt(ctx, "test_added_prompt_1", nil); err != nil {
		t.Errorf("the added prompt: %v", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Equal(h.changed, []string{"notifications/tools/list_changed", "notifications/prompts/list_changed"}) {
		t.Errorf("list changes heard: %v", h.changed)
	}
}
