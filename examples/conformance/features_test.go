package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// answers are a client's handlers for the server's questions: they record
// what was asked and answer as a user and a model would.
type answers struct {
	mu      sync.Mutex
	elicits []*mcp.ElicitParams
	samples []*mcp.CreateMessageParams
	updates chan string
}

func newAnswers() *answers { return &answers{updates: make(chan string, 16)} }

func (a *answers) elicit(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.elicits = append(a.elicits, p)
	a.mu.Unlock()
	if strings.Contains(p.Message, "decline") {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: json.RawMessage(`{"username":"ada","email":"ada@example.com"}`)}, nil
}

func (a *answers) sample(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	a.mu.Lock()
	a.samples = append(a.samples, p)
	a.mu.Unlock()
	return &mcp.CreateMessageResult{Role: "assistant", Content: mcp.TextContent("sampled: " + p.Messages[0].Content.Text),
		Model: "test-model", StopReason: "endTurn"}, nil
}

func (a *answers) asked() ([]*mcp.ElicitParams, []*mcp.CreateMessageParams) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.elicits), slices.Clone(a.samples)
}

// connectAnswering is connect with a client that answers elicitation and
// sampling and hears resource updates. Over a pipe, the server runs Serve on
// one end and the client speaks on the other; otherwise the client calls a
// session in process.
func connectAnswering(t *testing.T, version string, pipe bool) (*mcpclient.Client, *answers) {
	t.Helper()
	a := newAnswers()
	srv := newServer(time.Millisecond, slog.New(slog.DiscardHandler))
	opts := mcpclient.Options{
		ProtocolVersion: version, OnElicit: a.elicit, OnSample: a.sample,
		OnResourceUpdated: func(uri string) {
			select {
			case a.updates <- uri:
			default:
			}
		},
	}
	var c *mcpclient.Client
	var err error
	if pipe {
		ctx, cancel := context.WithCancel(context.Background())
		server, client := runtime.Pipe()
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ctx, server) }()
		t.Cleanup(func() {
			cancel()
			<-served
		})
		c, err = mcpclient.Connect(ctx, client, opts)
	} else {
		c, err = mcpclient.ConnectTransport(context.Background(), srv.InProcess(), opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, a
}

// wantCode checks that err is a JSON-RPC error with code.
func wantCode(t *testing.T, what string, err error, code int) {
	t.Helper()
	var re *runtime.Error
	if !errors.As(err, &re) || int(re.Code) != code {
		t.Errorf("%s: error %v, want code %d", what, err, code)
	}
}

func TestResources(t *testing.T) {
	ctx := context.Background()
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, _ := connect(t, version)
			rs, err := c.ListResources(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var uris []string
			for _, r := range rs {
				uris = append(uris, r.URI)
				if r.Name == "" || r.Description == "" || r.MIMEType == "" {
					t.Errorf("resource %+v", r)
				}
			}
			// The fixture's resources, then the files of its skill (skills/).
			want := []string{"test://static-text", "test://static-binary", watchedURI,
				"skill://mcp-conformance/SKILL.md", "skill://mcp-conformance/references/TOOLS.md"}
			if !slices.Equal(uris, want) {
				t.Errorf("resources %q, want %q", uris, want)
			}
			ts, err := c.ListResourceTemplates(ctx)
			if err != nil || len(ts) != 1 || ts[0].URITemplate != "test://template/{id}/data" || ts[0].MIMEType != "application/json" {
				t.Errorf("templates %+v, %v", ts, err)
			}

			text := readOne(ctx, t, c, "test://static-text")
			if text.Text != staticText || text.MIMEType != "text/plain" {
				t.Errorf("static text %+v", text)
			}
			bin := readOne(ctx, t, c, "test://static-binary")
			if bin.MIMEType != "image/png" || bin.Text != "" {
				t.Errorf("static binary %+v", bin)
			} else {
				checkRedPixel(t, bin.Blob)
			}
			for _, id := range []string{"123", "a b/c"} {
				uri := "test://template/" + mcp.EscapeURIVar(id) + "/data"
				got := readOne(ctx, t, c, uri)
				var rec record
				if got.MIMEType != "application/json" || json.Unmarshal([]byte(got.Text), &rec) != nil || rec.ID != id {
					t.Errorf("%s: %+v", uri, got)
				}
			}

			_, err = c.ReadResource(ctx, "test://no-such-resource")
			code := -32002
			if version == mcp.Version20260728 {
				code = -32602
			}
			wantCode(t, "unknown resource", err, code)
		})
	}
}

// readOne reads uri, which must give one contents item for that URI.
func readOne(ctx context.Context, t *testing.T, c *mcpclient.Client, uri string) mcp.ResourceContents {
	t.Helper()
	cs, err := c.ReadResource(ctx, uri)
	if err != nil || len(cs) != 1 || cs[0].URI != uri {
		t.Errorf("read %s: %+v, %v", uri, cs, err)
		return mcp.ResourceContents{}
	}
	return cs[0]
}

func TestPrompts(t *testing.T) {
	ctx := context.Background()
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, _ := connect(t, version)
			ps, err := c.ListPrompts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range ps {
				names = append(names, p.Name)
				if p.Description == "" {
					t.Errorf("prompt %s has no description", p.Name)
				}
				if p.Name == "test_prompt_with_arguments" && (len(p.Arguments) != 2 || p.Arguments[0].Name != "arg1" ||
					!p.Arguments[0].Required || p.Arguments[0].Description != "the first argument." || p.Arguments[1].Name != "arg2") {
					t.Errorf("%s arguments %+v", p.Name, p.Arguments)
				}
			}
			want := []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"}
			if !slices.Equal(names, want) {
				t.Errorf("prompts %q, want %q", names, want)
			}

			simple, err := c.GetPrompt(ctx, "test_simple_prompt", nil)
			if err != nil || len(simple.Messages) != 1 || simple.Messages[0].Role != "user" || simple.Messages[0].Content.Text != simplePrompt {
				t.Errorf("simple prompt %+v, %v", simple, err)
			}
			args, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "testValue1", "arg2": "testValue2"})
			if err != nil || len(args.Messages) != 1 || !strings.Contains(args.Messages[0].Content.Text, "testValue1") ||
				!strings.Contains(args.Messages[0].Content.Text, "testValue2") {
				t.Errorf("prompt with arguments %+v, %v", args, err)
			}
			_, err = c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "x"})
			wantCode(t, "missing arg2", err, -32602)
			emb, err := c.GetPrompt(ctx, "test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
			if err != nil || len(emb.Messages) != 2 || emb.Messages[0].Content.Type != "resource" ||
				emb.Messages[0].Content.Resource == nil || emb.Messages[0].Content.Resource.URI != "test://example-resource" {
				t.Errorf("prompt with embedded resource %+v, %v", emb, err)
			}
			img, err := c.GetPrompt(ctx, "test_prompt_with_image", nil)
			if err != nil || len(img.Messages) != 2 || img.Messages[0].Content.Type != "image" || img.Messages[0].Content.MIMEType != "image/png" {
				t.Fatalf("prompt with image %+v, %v", img, err)
			}
			checkRedPixel(t, img.Messages[0].Content.Data)
		})
	}
}

func TestCompletion(t *testing.T) {
	ctx := context.Background()
	prompt := mcp.CompletionRef{Type: "ref/prompt", Name: "test_prompt_with_arguments"}
	template := mcp.CompletionRef{Type: "ref/resource", URI: "test://template/{id}/data"}
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, _ := connect(t, version)
			for _, tc := range []struct {
				ref        mcp.CompletionRef
				arg, value string
				want       []string
				total      int
			}{
				{prompt, "arg1", "te", []string{"test", "testValue1", "testing"}, 0},
				{prompt, "arg1", "PAR", []string{"paris", "park", "party"}, 0},
				{prompt, "arg1", "zzz", []string{}, 0},
				{template, "id", "1", []string{"1", "12", "123"}, 3},
				{template, "id", "", recordIDs, len(recordIDs)},
			} {
				got, err := c.Complete(ctx, tc.ref, tc.arg, tc.value, nil)
				if err != nil || !slices.Equal(got.Values, tc.want) || got.Total != tc.total {
					t.Errorf("complete %+v %s=%q: %+v, %v; want %q total %d", tc.ref, tc.arg, tc.value, got, err, tc.want, tc.total)
				}
			}
			// An argument without a completion provider has no values.
			if got, err := c.Complete(ctx, prompt, "arg2", "a", nil); err != nil || len(got.Values) != 0 {
				t.Errorf("complete arg2: %+v, %v", got, err)
			}
		})
	}
}

// TestInputRequests calls the tools that ask the client for something: in
// legacy revisions they send requests the client answers, in 2026-07-28 they
// return input_required and the client retries with the answers; the
// handler code is the same.
func TestInputRequests(t *testing.T) {
	ctx := context.Background()
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, a := connectAnswering(t, version, false)
			conf := NewConformanceMCPClient(c)

			got, err := conf.Sampling(ctx, "What is the capital of France?")
			if err != nil || got.Text != "LLM response: sampled: What is the capital of France?" {
				t.Errorf("Sampling = %+v, %v", got, err)
			}
			if _, samples := a.asked(); len(samples) != 1 || samples[0].MaxTokens != 100 ||
				len(samples[0].Messages) != 1 || samples[0].Messages[0].Role != "user" {
				t.Errorf("sampling requests %+v", samples)
			}
			if version < mcp.Version20250618 {
				return // no elicitation before 2025-06-18
			}

			got, err = conf.Elicitation(ctx, "Please provide your information")
			if err != nil || got.Text != `User response: action=accept, content={"username":"ada","email":"ada@example.com"}` {
				t.Errorf("Elicitation = %+v, %v", got, err)
			}
			got, err = conf.Elicitation(ctx, "Please decline")
			if err != nil || got.Text != "User response: action=decline, content={}" {
				t.Errorf("Elicitation (declined) = %+v, %v", got, err)
			}
			if _, err := conf.ElicitationDefaults(ctx); err != nil {
				t.Errorf("ElicitationDefaults: %v", err)
			}
			if _, err := conf.ElicitationEnums(ctx); err != nil {
				t.Errorf("ElicitationEnums: %v", err)
			}
			elicits, _ := a.asked()
			if len(elicits) != 4 {
				t.Fatalf("%d elicitations, want 4", len(elicits))
			}
			for i, want := range []string{userInfoSchema, userInfoSchema, defaultsSchema, enumsSchema} {
				if !jsonEqual(elicits[i].RequestedSchema, want) {
					t.Errorf("elicitation %d schema %s, want %s", i, elicits[i].RequestedSchema, want)
				}
			}
			if elicits[0].Message != "Please provide your information" {
				t.Errorf("elicitation message %q", elicits[0].Message)
			}
		})
	}
}

// TestInputRequestsRefused: a client that cannot answer gets an error, not
// a made-up answer.
func TestInputRequestsRefused(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		c, _ := connect(t, version) // no OnElicit, no OnSample
		conf := NewConformanceMCPClient(c)
		if got, err := conf.Sampling(ctx, "hi"); err == nil {
			t.Errorf("%s: Sampling without the capability = %+v", version, got)
		}
		if got, err := conf.Elicitation(ctx, "hi"); err == nil {
			t.Errorf("%s: Elicitation without the capability = %+v", version, got)
		}
	}
}

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(a json.RawMessage, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// TestSubscribe subscribes to test://watched-resource over a pipe (the
// server's Serve sends the update on its connection) and hears of a change.
func TestSubscribe(t *testing.T) {
	ctx := context.Background()
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, a := connectAnswering(t, version, true)
			if got := readOne(ctx, t, c, watchedURI); !strings.Contains(got.Text, "version 1.") {
				t.Errorf("before: %q", got.Text)
			}
			if err := c.Subscribe(ctx, watchedURI); err != nil {
				t.Fatal(err)
			}
			if _, err := NewConformanceMCPClient(c).TouchWatchedResource(ctx); err != nil {
				t.Fatal(err)
			}
			select {
			case uri := <-a.updates:
				if uri != watchedURI {
					t.Errorf("update for %q", uri)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/resources/updated within 10s")
			}
			if got := readOne(ctx, t, c, watchedURI); !strings.Contains(got.Text, "version 2.") {
				t.Errorf("after: %q", got.Text)
			}
			if err := c.Unsubscribe(ctx, watchedURI); err != nil {
				t.Error(err)
			}
		})
	}
}
