//lint:file-ignore SA1019 sampling is deprecated in 2026-07-28 but still served to legacy sessions, which these tests drive.

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKFeatures drives examples/conformance with the official Go SDK
// client, over stdio and Streamable HTTP, in its default mode (2026-07-28:
// questions to the client come back as input_required results, and a
// subscription is a subscriptions/listen stream) and pinned to the legacy
// 2025-11-25 revision (server-to-client requests, resources/subscribe): it
// lists and reads resources and templates, subscribes and hears of an
// update, lists and gets prompts, completes arguments, and answers the
// elicitation and sampling questions of tools from its handlers.
func TestGoSDKFeatures(t *testing.T) {
	for _, transport := range []string{"stdio", "streamable"} {
		for _, c := range []struct{ mode, pin, want string }{
			{"default", "", "2026-07-28"},
			{"legacy", "2025-11-25", "2025-11-25"},
		} {
			t.Run(transport+"/"+c.mode, func(t *testing.T) {
				h := newGoSDKHandlers()
				var tr mcp.Transport
				var tally, wrote *msgTally
				if transport == "stdio" {
					rec := &recordingTransport{inner: &mcp.CommandTransport{Command: featuresCommand(t), TerminateDuration: 2 * time.Second}}
					tr, tally, wrote = rec, &rec.tally, &rec.wrote
				} else {
					srv := startFeaturesHTTP(t)
					wire := newHTTPWire(t)
					tr, tally, wrote = &mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: wire.client()}, &wire.tally, &wire.wrote
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "1"}, h.options())
				cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: c.pin})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer cs.Close()
				if got := cs.InitializeResult().ProtocolVersion; got != c.want {
					t.Fatalf("protocol version %q, want %q", got, c.want)
				}
				s := &goSDKFeatures{cs: cs, h: h, tally: tally, wrote: wrote, modern: c.want == "2026-07-28"}
				t.Run("resources", func(t *testing.T) { s.resources(ctx, t) })
				t.Run("prompts", func(t *testing.T) { s.prompts(ctx, t) })
				t.Run("completion", func(t *testing.T) { s.completion(ctx, t) })
				t.Run("elicitation", func(t *testing.T) { s.elicitation(ctx, t) })
				t.Run("sampling", func(t *testing.T) { s.sampling(ctx, t) })
				t.Run("subscribe", func(t *testing.T) { s.subscribe(ctx, t) })
				if err := cs.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
		}
	}
}

// goSDKHandlers are the client's handlers: they answer elicitation and
// sampling as a user and a model would, record what they were asked, and
// pass resource updates on.
type goSDKHandlers struct {
	mu      sync.Mutex
	elicits []*mcp.ElicitParams
	samples []*mcp.CreateMessageParams
	updates chan string
}

func newGoSDKHandlers() *goSDKHandlers { return &goSDKHandlers{updates: make(chan string, 16)} }

func (h *goSDKHandlers) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			h.mu.Lock()
			h.elicits = append(h.elicits, req.Params)
			h.mu.Unlock()
			if strings.Contains(req.Params.Message, "decline") {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"username": elicitUser, "email": elicitEmail}}, nil
		},
		//lint:ignore SA1019 sampling is deprecated in 2026-07-28 but still served, and tested here
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			h.mu.Lock()
			h.samples = append(h.samples, req.Params)
			h.mu.Unlock()
			var prompt string
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					prompt = tc.Text
				}
			}
			return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: sampledPrefix + prompt},
				Model: "interop-model", StopReason: "endTurn"}, nil
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case h.updates <- req.Params.URI:
			default:
			}
		},
	}
}

func (h *goSDKHandlers) asked() ([]*mcp.ElicitParams, []*mcp.CreateMessageParams) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.elicits), slices.Clone(h.samples)
}

// goSDKFeatures is one connected Go SDK session and what it saw.
type goSDKFeatures struct {
	cs     *mcp.ClientSession
	h      *goSDKHandlers
	tally  *msgTally
	wrote  *msgTally // what the client wrote
	modern bool
}

func (s *goSDKFeatures) resources(ctx context.Context, t *testing.T) {
	var uris []string
	for r, err := range s.cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		uris = append(uris, r.URI)
		if r.Name == "" || r.Description == "" || r.MIMEType == "" {
			t.Errorf("resource %s: name %q, description %q, mimeType %q", r.URI, r.Name, r.Description, r.MIMEType)
		}
		if r.URI == staticTextURI && (r.Name != "static_text" || r.Title != "Static text" || r.MIMEType != "text/plain") {
			t.Errorf("static text resource: %s", brief(r))
		}
	}
	if !slices.Equal(uris, wantResources) {
		t.Errorf("resources %q, want %q", uris, wantResources)
	}
	var templates []string
	for rt, err := range s.cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		templates = append(templates, rt.URITemplate)
		if rt.Name == "" || rt.Description == "" || rt.MIMEType != "application/json" {
			t.Errorf("template %s: %s", rt.URITemplate, brief(rt))
		}
	}
	if !slices.Equal(templates, []string{recordTemplate}) {
		t.Errorf("templates %q, want %q", templates, recordTemplate)
	}

	text := s.read(ctx, t, staticTextURI)
	if text == nil || text.MIMEType != "text/plain" || text.Text == "" || len(text.Blob) > 0 {
		t.Errorf("read %s: %s", staticTextURI, brief(text))
	}
	bin := s.read(ctx, t, staticBinaryURI)
	if bin == nil || bin.MIMEType != "image/png" || bin.Text != "" {
		t.Errorf("read %s: %s", staticBinaryURI, brief(bin))
	} else if img, err := png.Decode(bytes.NewReader(bin.Blob)); err != nil || img.Bounds().Dx() != 1 {
		t.Errorf("read %s: not a 1x1 PNG (%v)", staticBinaryURI, err)
	}
	for _, id := range []string{"123", "a b/c"} {
		uri := "test://template/" + escapeVar(id) + "/data"
		c := s.read(ctx, t, uri)
		var rec wireRecord
		if c == nil || c.MIMEType != "application/json" || json.Unmarshal([]byte(c.Text), &rec) != nil || rec.ID != id {
			t.Errorf("read %s: %s, want the record %q", uri, brief(c), id)
		}
	}

	_, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://no-such-resource"})
	want := int64(-32002)
	if s.modern {
		want = -32602
	}
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != want {
		t.Errorf("read of an unknown resource: %v, want error %d", err, want)
	}
}

// read reads uri, which must give one contents item for that URI.
func (s *goSDKFeatures) read(ctx context.Context, t *testing.T, uri string) *mcp.ResourceContents {
	t.Helper()
	res, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Errorf("read %s: %v", uri, err)
		return nil
	}
	if len(res.Contents) != 1 || res.Contents[0].URI != uri {
		t.Errorf("read %s: contents %s", uri, brief(res.Contents))
		return nil
	}
	return res.Contents[0]
}

func (s *goSDKFeatures) prompts(ctx context.Context, t *testing.T) {
	var names []string
	for p, err := range s.cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		names = append(names, p.Name)
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
		if p.Name == promptWithArgs {
			var args []string
			for _, a := range p.Arguments {
				args = append(args, a.Name)
				if !a.Required || a.Description == "" {
					t.Errorf("%s argument %s: %s", p.Name, a.Name, brief(a))
				}
			}
			if !slices.Equal(args, []string{"arg1", "arg2"}) {
				t.Errorf("%s arguments %q", p.Name, args)
			}
		}
	}
	if !slices.Equal(names, wantPrompts) {
		t.Errorf("prompts %q, want %q", names, wantPrompts)
	}

	msgs := s.getPrompt(ctx, t, promptWithArgs, map[string]string{"arg1": "first-value", "arg2": "second-value"})
	if all := brief(msgs); !strings.Contains(all, "first-value") || !strings.Contains(all, "second-value") {
		t.Errorf("%s: %s, want both arguments in it", promptWithArgs, all)
	}
	msgs = s.getPrompt(ctx, t, "test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
	if !slices.ContainsFunc(msgs, func(m promptMessage) bool {
		return m.Content.Type == "resource" && m.Content.Resource != nil && m.Content.Resource.URI == "test://example-resource"
	}) {
		t.Errorf("embedded resource prompt: %s", brief(msgs))
	}
	msgs = s.getPrompt(ctx, t, "test_prompt_with_image", nil)
	if !slices.ContainsFunc(msgs, func(m promptMessage) bool {
		return m.Content.Type == "image" && m.Content.MIMEType == "image/png" && m.Content.Data != ""
	}) {
		t.Errorf("image prompt: %s", brief(msgs))
	}

	// A missing required argument is invalid params.
	_, err := s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: promptWithArgs, Arguments: map[string]string{"arg1": "x"}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != -32602 {
		t.Errorf("%s without arg2: %v, want error -32602", promptWithArgs, err)
	}
}

func (s *goSDKFeatures) getPrompt(ctx context.Context, t *testing.T, name string, args map[string]string) []promptMessage {
	t.Helper()
	res, err := s.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Errorf("prompts/get %s: %v", name, err)
		return nil
	}
	var msgs []promptMessage
	if err := remarshal(res.Messages, &msgs); err != nil || len(msgs) == 0 {
		t.Errorf("prompts/get %s: messages %s (%v)", name, brief(res.Messages), err)
	}
	return msgs
}

func (s *goSDKFeatures) completion(ctx context.Context, t *testing.T) {
	for _, c := range []struct {
		ref        *mcp.CompleteReference
		arg, value string
		want       []string
		total      int
	}{
		{&mcp.CompleteReference{Type: "ref/prompt", Name: promptWithArgs}, "arg1", "te", []string{"test", "testValue1", "testing"}, 0},
		{&mcp.CompleteReference{Type: "ref/prompt", Name: promptWithArgs}, "arg1", "zzz", []string{}, 0},
		{&mcp.CompleteReference{Type: "ref/resource", URI: recordTemplate}, "id", "1", []string{"1", "12", "123"}, 3},
	} {
		res, err := s.cs.Complete(ctx, &mcp.CompleteParams{Ref: c.ref, Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: c.value}})
		if err != nil {
			t.Errorf("complete %s %s=%q: %v", brief(c.ref), c.arg, c.value, err)
			continue
		}
		if got := res.Completion.Values; !slices.Equal(got, c.want) || got == nil || (c.total > 0 && res.Completion.Total != c.total) {
			t.Errorf("complete %s %s=%q: %s, want values %q (total %d)", brief(c.ref), c.arg, c.value, brief(res.Completion), c.want, c.total)
		}
	}
}

func (s *goSDKFeatures) elicitation(ctx context.Context, t *testing.T) {
	before := s.tally.method("elicitation/create")
	inputRequired := s.tally.resultType("input_required")
	res := s.callText(ctx, t, "test_elicitation", map[string]any{"message": "Please provide your information"})
	for _, want := range []string{"action=accept", `"username":"` + elicitUser + `"`, `"email":"` + elicitEmail + `"`} {
		if !strings.Contains(res, want) {
			t.Errorf("test_elicitation: %q, want %s in it", res, want)
		}
	}
	res = s.callText(ctx, t, "test_elicitation", map[string]any{"message": "Please decline this"})
	if !strings.Contains(res, "action=decline") {
		t.Errorf("test_elicitation (declined): %q", res)
	}
	elicits, _ := s.h.asked()
	if len(elicits) != 2 {
		t.Fatalf("the elicitation handler ran %d times, want 2", len(elicits))
	}
	e := elicits[0]
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := remarshal(e.RequestedSchema, &schema); err != nil || schema.Type != "object" ||
		schema.Properties["username"] == nil || schema.Properties["email"] == nil || len(schema.Required) != 2 {
		t.Errorf("elicitation: message %q, schema %s", e.Message, brief(e.RequestedSchema))
	}
	if e.Message != "Please provide your information" || (e.Mode != "" && e.Mode != "form") {
		t.Errorf("elicitation: mode %q, message %q", e.Mode, e.Message)
	}
	s.checkAskedHow(t, "elicitation/create", before, inputRequired)
}

func (s *goSDKFeatures) sampling(ctx context.Context, t *testing.T) {
	before := s.tally.method("sampling/createMessage")
	inputRequired := s.tally.resultType("input_required")
	prompt := "What is the capital of France?"
	res := s.callText(ctx, t, "test_sampling", map[string]any{"prompt": prompt})
	if res != "LLM response: "+sampledPrefix+prompt {
		t.Errorf("test_sampling: %q", res)
	}
	_, samples := s.h.asked()
	if len(samples) != 1 {
		t.Fatalf("the sampling handler ran %d times, want 1", len(samples))
	}
	if p := samples[0]; p.MaxTokens != 100 || len(p.Messages) != 1 || p.Messages[0].Role != "user" {
		t.Errorf("sampling request %s", brief(p))
	}
	s.checkAskedHow(t, "sampling/createMessage", before, inputRequired)
}

// checkAskedHow checks how the server asked its questions: in 2026-07-28
// as input_required results (and never as a request), before that as
// requests of method.
func (s *goSDKFeatures) checkAskedHow(t *testing.T, method string, requestsBefore, inputRequiredBefore int) {
	t.Helper()
	requests := s.tally.method(method) - requestsBefore
	results := s.tally.resultType("input_required") - inputRequiredBefore
	if s.modern && (requests != 0 || results == 0) {
		t.Errorf("2026-07-28: %d %s requests and %d input_required results, want none and some", requests, method, results)
	}
	if !s.modern && (requests == 0 || results != 0) {
		t.Errorf("legacy: %d %s requests and %d input_required results, want some and none", requests, method, results)
	}
}

// callText calls a tool that must succeed and returns its text.
func (s *goSDKFeatures) callText(ctx context.Context, t *testing.T, name string, args any) string {
	t.Helper()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var w wireResult
	if err := remarshal(res, &w); err != nil || w.IsError {
		t.Fatalf("%s: %s (%v)", name, brief(res), err)
	}
	return w.text()
}

func (s *goSDKFeatures) subscribe(ctx context.Context, t *testing.T) {
	if got := s.read(ctx, t, watchedURI); got == nil || !strings.Contains(got.Text, "version 1") {
		t.Fatalf("read %s before any change: %s", watchedURI, brief(got))
	}
	acks := s.tally.method("notifications/subscriptions/acknowledged")
	cancels := s.wrote.method("notifications/cancelled")
	subscribed := make(chan error, 1)
	go func() {
		// In 2026-07-28 the SDK's Subscribe opens a subscriptions/listen
		// stream that stays open until Unsubscribe (go-sdk v1.8.0 returns
		// nil as soon as the request is sent, before the acknowledgement);
		// in legacy revisions it returns once the server answered
		// resources/subscribe.
		subscribed <- s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI})
	}()
	if s.modern {
		// The stream is live once the server acknowledged it; only an error
		// from Subscribe ends the wait early.
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		acked := make(chan error, 1)
		go func() { acked <- s.tally.waitMethod(actx, "notifications/subscriptions/acknowledged", acks) }()
		for pending, waiting := subscribed, true; waiting; {
			select {
			case err := <-pending:
				if err != nil {
					t.Fatalf("subscribe failed before the acknowledgement: %v", err)
				}
				subscribed <- nil // for the check after Unsubscribe
				pending = nil     // returned early: keep waiting for the ack
			case err := <-acked:
				if err != nil {
					t.Fatalf("no acknowledgement of the subscription within 10s: %v", err)
				}
				waiting = false
			}
		}
	} else if err := <-subscribed; err != nil {
		t.Fatalf("resources/subscribe: %v", err)
	}

	if res := s.callText(ctx, t, touchWatchedTool, map[string]any{}); !strings.Contains(res, "version 2") {
		t.Errorf("%s: %q", touchWatchedTool, res)
	}
	select {
	case uri := <-s.h.updates:
		if uri != watchedURI {
			t.Errorf("update for %q, want %q", uri, watchedURI)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no notifications/resources/updated within 10s of the change")
	}
	// The SDK forgets a cached read on the update: the new text shows.
	if got := s.read(ctx, t, watchedURI); got == nil || !strings.Contains(got.Text, "version 2") {
		t.Errorf("read %s after the change: %s", watchedURI, brief(got))
	}

	if err := s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
	if s.modern {
		// Unsubscribe cancels the listen stream: the client tells the server.
		uctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := s.wrote.waitMethod(uctx, "notifications/cancelled", cancels); err != nil {
			t.Errorf("subscriptions/listen not cancelled within 10s of Unsubscribe: %v", err)
		}
		select {
		case err := <-subscribed:
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("subscribe: %v", err)
			}
		case <-uctx.Done():
			t.Errorf("Subscribe still running 10s after Unsubscribe")
		}
	}
}
