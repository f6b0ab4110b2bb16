package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Texts the conformance scenarios look for.
const (
	simpleText   = "This is a simple text response for testing."
	errorText    = "This tool intentionally returns an error for testing"
	embeddedURI  = "test://embedded-resource"
	embeddedText = "This is an embedded resource content."
	mixedURI     = "test://mixed-content-resource"
	mixedJSON    = `{"test":"data","value":123}`

	staticText    = "This is the content of the static text resource."
	watchedURI    = "test://watched-resource"
	simplePrompt  = "This is a simple prompt for testing."
	samplingTitle = "LLM response: "
)

// The forms the elicitation tools ask for, as the scenarios expect them.
const (
	userInfoSchema = `{"type":"object","properties":{` +
		`"username":{"type":"string","description":"User's response"},` +
		`"email":{"type":"string","description":"User's email address"}},` +
		`"required":["username","email"]}`
	defaultsSchema = `{"type":"object","properties":{` +
		`"name":{"type":"string","description":"User name","default":"John Doe"},` +
		`"age":{"type":"integer","description":"User age","default":30},` +
		`"score":{"type":"number","description":"User score","default":95.5},` +
		`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
		`"verified":{"type":"boolean","description":"Verification status","default":true}}}`
	enumsSchema = `{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","description":"Pick one","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","description":"Pick one","oneOf":[` +
		`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","description":"Pick one","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","description":"Pick any","items":{"type":"string","enum":["option1","option2","option3"]}},` +
		`"titledMulti":{"type":"array","description":"Pick any","items":{"anyOf":[` +
		`{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`
)

// Values the completions offer.
var (
	arg1Values = []string{"paris", "park", "party", "test", "testValue1", "testing"}
	recordIDs  = []string{"1", "12", "123", "2", "42"}
)

// fixture implements Conformance.
type fixture struct {
	// step is the pause between the progress reports and log messages.
	step time.Duration
	png  []byte
	wav  []byte

	// updated, when set, tells subscribers a resource changed (the
	// server's ResourceUpdated).
	updated func(uri string)

	mu      sync.Mutex
	touches int // how often test://watched-resource changed
}

var _ Conformance = (*fixture)(nil)

func newFixture(step time.Duration) *fixture {
	return &fixture{step: step, png: redPixelPNG(), wav: silentWAV()}
}

func (f *fixture) SimpleText(context.Context) (mcp.Content, error) {
	return mcp.TextContent(simpleText), nil
}

func (f *fixture) Image(context.Context) (mcp.Content, error) {
	return mcp.ImageContent(f.png, "image/png"), nil
}

func (f *fixture) Audio(context.Context) (mcp.Content, error) {
	return mcp.AudioContent(f.wav, "audio/wav"), nil
}

func (f *fixture) EmbeddedResource(context.Context) (mcp.Content, error) {
	return mcp.EmbeddedText(embeddedURI, "text/plain", embeddedText), nil
}

func (f *fixture) MultipleContentTypes(context.Context) ([]mcp.Content, error) {
	return []mcp.Content{
		mcp.TextContent("Multiple content types test:"),
		mcp.ImageContent(f.png, "image/png"),
		mcp.EmbeddedText(mixedURI, "application/json", mixedJSON),
	}, nil
}

func (f *fixture) ErrorHandling(context.Context) (mcp.Content, error) {
	//lint:ignore ST1005 the conformance suite checks this exact text
	return mcp.Content{}, errors.New(errorText)
}

func (f *fixture) WithProgress(ctx context.Context) (mcp.Content, error) {
	for i, done := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, f.step); err != nil {
				return mcp.Content{}, err
			}
		}
		mcpserver.Progress(ctx, done, 100, "")
	}
	return mcp.TextContent("Progress reported: 0, 50 and 100 of 100."), nil
}

func (f *fixture) WithLogging(ctx context.Context) (mcp.Content, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, f.step); err != nil {
				return mcp.Content{}, err
			}
		}
		mcpserver.Log(ctx, mcp.LevelInfo, "conformance", msg)
	}
	return mcp.TextContent("Sent three log messages."), nil
}

func (f *fixture) JSONSchema(_ context.Context, p person) (mcp.Content, error) {
	text := "Hello"
	if p.Name != "" {
		text += ", " + p.Name
	}
	if p.Address != nil {
		text += ", of " + p.Address.Street + " in " + p.Address.City
	}
	switch {
	case p.ContactMethod == "phone" && p.Phone != "":
		text += "; we will call " + p.Phone
	case p.Email != "":
		text += "; we will write to " + p.Email
	}
	return mcp.TextContent(text + "!"), nil
}

func (f *fixture) Reconnection(ctx context.Context) (mcp.Content, error) {
	// A notification first, so that the answer is an event stream (the
	// polling a client resumes); then end that stream and finish the work
	// while the client reconnects.
	mcpserver.Log(ctx, mcp.LevelInfo, "conformance", "closing the stream; reconnect to get the result")
	closed := mcpserver.CloseStream(ctx)
	if err := pause(ctx, f.step); err != nil {
		return mcp.Content{}, err
	}
	if !closed {
		return mcp.TextContent("Done (the transport kept the stream open)."), nil
	}
	return mcp.TextContent("Done, after closing the stream."), nil
}

func (f *fixture) Sampling(ctx context.Context, prompt string) (mcp.Content, error) {
	res, err := ask.Sample(ctx, &mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent(prompt)}},
		MaxTokens: 100,
	})
	if err != nil {
		return mcp.Content{}, err
	}
	if res.Content.Type != "text" {
		return mcp.TextContent(samplingTitle + "(" + res.Content.Type + " content from " + res.Model + ")"), nil
	}
	return mcp.TextContent(samplingTitle + res.Content.Text), nil
}

func (f *fixture) Elicitation(ctx context.Context, message string) (mcp.Content, error) {
	return elicit(ctx, "User response: ", message, userInfoSchema)
}

func (f *fixture) ElicitationDefaults(ctx context.Context) (mcp.Content, error) {
	return elicit(ctx, "Elicitation completed: ", "Please review and update the form fields with defaults", defaultsSchema)
}

func (f *fixture) ElicitationEnums(ctx context.Context) (mcp.Content, error) {
	return elicit(ctx, "Elicitation completed: ", "Please select options from the enum fields", enumsSchema)
}

// elicit asks the user for the form schema describes and reports the answer
// after prefix.
func elicit(ctx context.Context, prefix, message, schema string) (mcp.Content, error) {
	res, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)})
	if err != nil {
		return mcp.Content{}, err
	}
	content := "{}"
	if len(res.Content) > 0 {
		content = string(res.Content)
	}
	return mcp.TextContent(prefix + "action=" + res.Action + ", content=" + content), nil
}

func (f *fixture) TouchWatchedResource(context.Context) (mcp.Content, error) {
	f.mu.Lock()
	f.touches++
	n := f.touches
	f.mu.Unlock()
	if f.updated != nil {
		f.updated(watchedURI)
	}
	return mcp.TextContent(fmt.Sprintf("%s changed (version %d).", watchedURI, n+1)), nil
}

func (f *fixture) StaticText(context.Context) (string, error) { return staticText, nil }

func (f *fixture) StaticBinary(context.Context) ([]byte, error) { return f.png, nil }

func (f *fixture) TemplateData(_ context.Context, id string) (record, error) {
	return record{ID: id, Name: "Record " + id}, nil
}

func (f *fixture) WatchedResource(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("Watched resource, version %d.", f.touches+1), nil
}

func (f *fixture) SimplePrompt(context.Context) (string, error) { return simplePrompt, nil }

func (f *fixture) PromptWithArguments(_ context.Context, arg1, arg2 string) (string, error) {
	return fmt.Sprintf("Prompt with arguments: arg1=%q, arg2=%q.", arg1, arg2), nil
}

func (f *fixture) PromptWithEmbeddedResource(_ context.Context, resourceUri string) ([]mcp.PromptMessage, error) {
	return []mcp.PromptMessage{
		{Role: "user", Content: mcp.EmbeddedText(resourceUri, "text/plain", "Embedded resource content for testing.")},
		{Role: "user", Content: mcp.TextContent("Please process the embedded resource above.")},
	}, nil
}

func (f *fixture) PromptWithImage(context.Context) ([]mcp.PromptMessage, error) {
	return []mcp.PromptMessage{
		{Role: "user", Content: mcp.ImageContent(f.png, "image/png")},
		{Role: "user", Content: mcp.TextContent("Please analyze the image above.")},
	}, nil
}

func (f *fixture) CompleteArg1(_ context.Context, value string) ([]string, error) {
	return withPrefix(arg1Values, value), nil
}

func (f *fixture) CompleteRecordID(_ context.Context, value string, _ map[string]string) (*mcp.Completion, error) {
	ids := withPrefix(recordIDs, value)
	return &mcp.Completion{Values: ids, Total: len(ids)}, nil
}

// withPrefix returns the values that start with prefix, ignoring case, in
// their order.
func withPrefix(values []string, prefix string) []string {
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			out = append(out, v)
		}
	}
	return out
}

// pause waits for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redPixelPNG encodes a 1x1 red image.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding to memory does not fail
	}
	return b.Bytes()
}

// silentWAV encodes 10 ms of silence: 8 kHz, mono, 16-bit PCM.
func silentWAV() []byte {
	const rate, samples = 8000, 80
	data := make([]byte, samples*2)
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) } // a bytes.Buffer does not fail
	b.WriteString("RIFF")
	w(uint32(36 + len(data)))
	b.WriteString("WAVEfmt ")
	w(uint32(16))       // fmt chunk size
	w(uint16(1))        // PCM
	w(uint16(1))        // channels
	w(uint32(rate))     // sample rate
	w(uint32(rate * 2)) // byte rate
	w(uint16(2))        // block align
	w(uint16(16))       // bits per sample
	b.WriteString("data")
	w(uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}
