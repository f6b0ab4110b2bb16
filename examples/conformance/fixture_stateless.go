package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// maxAdded bounds the tools and prompts the trigger tools add over a
// process's life, so a client calling them in a loop cannot grow the
// server without end.
const maxAdded = 1000

// stateless implements Stateless.
type stateless struct {
	step time.Duration

	// srv is the server the trigger tools add to.
	srv *mcpserver.Server

	mu             sync.Mutex
	tools, prompts int // how many the triggers added
}

var _ Stateless = (*stateless)(nil)

// oneString is a form with one required string field.
func oneString(name string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"` + name + `":{"type":"string"}},"required":["` + name + `"]}`)
}

// field returns the string (or other JSON value, as text) the user entered
// in field name of an accepted form, or why there is none.
func field(res *mcp.ElicitResult, name string) string {
	if res.Action != "accept" {
		return "(" + res.Action + ")"
	}
	var content map[string]json.RawMessage
	json.Unmarshal(res.Content, &content)
	v, ok := content[name]
	if !ok {
		return "(no " + name + ")"
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

func (f *stateless) InputElicitation(ctx context.Context) (mcp.Content, error) {
	res, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: oneString("name")}, ask.Key("user_name"))
	if err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent("Hello, " + field(res, "name") + "!"), nil
}

// capitalQuestion is the question InputSampling asks the model.
var capitalQuestion = &mcp.CreateMessageParams{
	Messages:  []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("What is the capital of France?")}},
	MaxTokens: 100,
}

func (f *stateless) InputSampling(ctx context.Context) (mcp.Content, error) {
	res, err := ask.Sample(ctx, capitalQuestion, ask.Key("capital_question"))
	if err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent("The model says: " + messageText(res)), nil
}

func messageText(res *mcp.CreateMessageResult) string {
	if res.Content.Type != "text" {
		return "(" + res.Content.Type + " content from " + res.Model + ")"
	}
	return res.Content.Text
}

func (f *stateless) InputListRoots(ctx context.Context) (mcp.Content, error) {
	roots, err := ask.ListRoots(ctx, ask.Key("client_roots"))
	if err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent("The client's roots: " + rootList(roots)), nil
}

func rootList(roots []mcp.Root) string {
	if len(roots) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, r := range roots {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.URI)
		if r.Name != "" {
			b.WriteString(" (" + r.Name + ")")
		}
	}
	return b.String()
}

// confirm asks the user to confirm, under the key "confirm".
func confirm(ctx context.Context) (*mcp.ElicitResult, error) {
	return ask.Elicit(ctx, &mcp.ElicitParams{
		Message:         "Please confirm",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
	}, ask.Key("confirm"))
}

func (f *stateless) InputRequestState(ctx context.Context) (mcp.Content, error) {
	res, err := confirm(ctx)
	if err != nil {
		return mcp.Content{}, err
	}
	if !ask.StateVerified(ctx) {
		return mcp.TextContent("Confirmed (ok=" + field(res, "ok") + "), but the answer came without the requestState."), nil
	}
	return mcp.TextContent("state-ok: the requestState verified; confirmed (ok=" + field(res, "ok") + ")."), nil
}

func (f *stateless) InputMultiple(ctx context.Context) (mcp.Content, error) {
	name, err1 := ask.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: oneString("name")}, ask.Key("user_name"))
	greeting, err2 := ask.Sample(ctx, &mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("Generate a greeting")}},
		MaxTokens: 50,
	}, ask.Key("greeting"))
	roots, err3 := ask.ListRoots(ctx, ask.Key("client_roots"))
	// Asked all at once: a missing answer is one of three.
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return mcp.Content{}, err
		}
	}
	return mcp.TextContent(fmt.Sprintf("%s, %s! Your roots: %s.", messageText(greeting), field(name, "name"), rootList(roots))), nil
}

func (f *stateless) InputMultiRound(ctx context.Context) (mcp.Content, error) {
	name, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Step 1: What is your name?", RequestedSchema: oneString("name")}, ask.Key("step1"))
	if err != nil {
		return mcp.Content{}, err
	}
	color, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Step 2: What is your favorite color?", RequestedSchema: oneString("color")}, ask.Key("step2"))
	if err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent(field(name, "name") + " likes " + field(color, "color") + "."), nil
}

func (f *stateless) InputTamperedState(ctx context.Context) (mcp.Content, error) {
	res, err := confirm(ctx)
	if err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent("Confirmed (ok=" + field(res, "ok") + ")."), nil
}

// missingCapability reports whether err is the error for a capability the
// client did not declare.
func missingCapability(err error) bool {
	var re *runtime.Error
	return errors.As(err, &re) && re.Code == mcp.CodeMissingClientCapability
}

func (f *stateless) InputCapabilities(ctx context.Context) (mcp.Content, error) {
	var parts []string
	user, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Say a word", RequestedSchema: oneString("word")}, ask.Key("user_word"))
	switch {
	case err == nil:
		parts = append(parts, "the user said "+field(user, "word"))
	case !missingCapability(err):
		return mcp.Content{}, err
	}
	model, err := ask.Sample(ctx, &mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("Say a word")}},
		MaxTokens: 10,
	}, ask.Key("model_word"))
	switch {
	case err == nil:
		parts = append(parts, "the model said "+messageText(model))
	case missingCapability(err) && len(parts) == 0:
		return mcp.Content{}, mcpserver.RequireClientCapability(ctx, "sampling")
	case !missingCapability(err):
		return mcp.Content{}, err
	}
	return mcp.TextContent(strings.Join(parts, "; ") + "."), nil
}

func (f *stateless) InputPrompt(ctx context.Context) (string, error) {
	res, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "What context should the prompt use?", RequestedSchema: oneString("context")}, ask.Key("user_context"))
	if err != nil {
		return "", err
	}
	return "Answer the question using this context: " + field(res, "context"), nil
}

func (f *stateless) MissingCapability(ctx context.Context) (mcp.Content, error) {
	res, err := ask.Sample(ctx, capitalQuestion)
	if err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent("The model says: " + messageText(res)), nil
}

func (f *stateless) StreamingElicitation(ctx context.Context) (mcp.Content, error) {
	mcpserver.Progress(ctx, 1, 2, "looking things up")
	if err := pause(ctx, f.step); err != nil {
		return mcp.Content{}, err
	}
	mcpserver.Progress(ctx, 2, 2, "ready to ask")
	res, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Anything to add?", RequestedSchema: oneString("word")}, ask.Key("word"))
	if err != nil {
		return mcp.Content{}, err
	}
	return mcp.TextContent("You added: " + field(res, "word")), nil
}

func (f *stateless) Logging(ctx context.Context) (mcp.Content, error) {
	mcpserver.Log(ctx, mcp.LevelInfo, "conformance", "test_logging_tool started")
	mcpserver.Log(ctx, mcp.LevelInfo, "conformance", "test_logging_tool finished")
	return mcp.TextContent("Logged two messages at level info."), nil
}

func (f *stateless) Forecast(_ context.Context, q forecastQuery) (mcp.Content, error) {
	days := max(q.Days, 1)
	text := fmt.Sprintf("Sunny in %s for the next %d day(s)", q.Region, days)
	if q.Detail != "" {
		text += ", " + q.Detail + " light"
	}
	return mcp.TextContent(text + "."), nil
}

func (f *stateless) TriggerToolChange(context.Context) (mcp.Content, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tools >= maxAdded {
		return mcp.Content{}, fmt.Errorf("already added %d tools, the most this fixture adds", maxAdded)
	}
	f.tools++
	name := fmt.Sprintf("test_added_tool_%d", f.tools)
	text, _ := json.Marshal(map[string]string{"text": name + " answers."})
	f.srv.AddTools(mcpserver.Tool{
		Name:        name,
		Description: "A tool test_trigger_tool_change added.",
		Handler:     func(context.Context, json.RawMessage) (json.RawMessage, error) { return text, nil },
	})
	return mcp.TextContent("Added the tool " + name + "."), nil
}

func (f *stateless) TriggerPromptChange(context.Context) (mcp.Content, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.prompts >= maxAdded {
		return mcp.Content{}, fmt.Errorf("already added %d prompts, the most this fixture adds", maxAdded)
	}
	f.prompts++
	name := fmt.Sprintf("test_added_prompt_%d", f.prompts)
	f.srv.AddPrompts(mcpserver.Prompt{
		Name:        name,
		Description: "A prompt test_trigger_prompt_change added.",
		Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("This prompt was added by test_trigger_prompt_change.")}}}, nil
		},
	})
	return mcp.TextContent("Added the prompt " + name + "."), nil
}
