package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// toolNames are the tools the conformance scenarios call, in the order the
// server lists them.
var toolNames = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_error_handling", "test_tool_with_progress",
	"test_tool_with_logging", "json_schema_2020_12_tool", "test_reconnection",
	"test_sampling", "test_sampling_with_tools", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
	"test_touch_watched_resource",
	// Stateless
	"test_input_required_result_elicitation", "test_input_required_result_sampling",
	"test_input_required_result_list_roots", "test_input_required_result_request_state",
	"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
	"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
	"test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
	"test_forecast_by_region", "test_trigger_tool_change", "test_trigger_prompt_change",
	// Tasks
	"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
	"test_tool_with_task",
}

// logs collects the log messages a client receives.
type logs struct {
	mu   sync.Mutex
	msgs []mcp.LogMessage
}

func (l *logs) add(m mcp.LogMessage) {
	l.mu.Lock()
	l.msgs = append(l.msgs, m)
	l.mu.Unlock()
}

func (l *logs) take() []mcp.LogMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.msgs
	l.msgs = nil
	return out
}

// connect starts the fixture in process and connects a client speaking version.
func connect(t *testing.T, version string) (*mcpclient.Client, *logs) {
	t.Helper()
	l := new(logs)
	srv := newServer(time.Millisecond, slog.New(slog.DiscardHandler))
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{ProtocolVersion: version, OnLog: l.add})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, l
}

var versions = []string{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728}

func TestToolsList(t *testing.T) {
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, _ := connect(t, version)
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
				if tool.Description == "" {
					t.Errorf("%s has no description", tool.Name)
				}
				if tool.OutputSchema != nil {
					t.Errorf("%s returns content but declares an output schema: %s", tool.Name, tool.OutputSchema)
				}
				var schema map[string]any
				if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema["type"] != "object" || schema["additionalProperties"] != false {
					t.Errorf("%s: input schema %s", tool.Name, tool.InputSchema)
				}
				if tool.Name != "json_schema_2020_12_tool" {
					continue
				}
				// What the json-schema-2020-12 scenario checks: the schema
				// person.schema.json states, as it states it.
				defs, _ := schema["$defs"].(map[string]any)
				props, _ := schema["properties"].(map[string]any)
				addr, _ := props["address"].(map[string]any)
				def, _ := defs["address"].(map[string]any)
				allOf, _ := schema["allOf"].([]any)
				if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" || def["$anchor"] != "addressDef" ||
					addr["$ref"] != "#/$defs/address" || props["name"] == nil || len(allOf) != 1 ||
					schema["if"] == nil || schema["then"] == nil || schema["else"] == nil {
					t.Errorf("json_schema_2020_12_tool: input schema %s", tool.InputSchema)
				}
				stated, err := os.ReadFile("person.schema.json")
				if err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				json.Compact(&want, stated)
				if string(tool.InputSchema) != want.String() {
					t.Errorf("json_schema_2020_12_tool: input schema\n%s\nwant person.schema.json\n%s", tool.InputSchema, want.Bytes())
				}
			}
			if !slices.Equal(names, toolNames) {
				t.Errorf("tools %v, want %v", names, toolNames)
			}
		})
	}
}

func TestContentTools(t *testing.T) {
	ctx := context.Background()
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, _ := connect(t, version)
			conf := NewConformanceMCPClient(c)

			text, err := conf.SimpleText(ctx)
			if err != nil || text.Type != "text" || text.Text != simpleText {
				t.Errorf("SimpleText = %+v, %v", text, err)
			}

			img, err := conf.Image(ctx)
			if err != nil || img.Type != "image" || img.MIMEType != "image/png" {
				t.Fatalf("Image = %+v, %v", img, err)
			}
			checkRedPixel(t, img.Data)

			audio, err := conf.Audio(ctx)
			switch {
			case err != nil:
				t.Errorf("Audio: %v", err)
			case version == mcp.Version20241105:
				// 2024-11-05 has no audio blocks: a text block says what was left out.
				if audio.Type != "text" || !strings.Contains(audio.Text, "audio/wav") {
					t.Errorf("Audio in 2024-11-05 = %+v", audio)
				}
			default:
				data, derr := base64.StdEncoding.DecodeString(audio.Data)
				if audio.Type != "audio" || audio.MIMEType != "audio/wav" || derr != nil ||
					!bytes.HasPrefix(data, []byte("RIFF")) || string(data[8:16]) != "WAVEfmt " || len(data) != 44+160 {
					t.Errorf("Audio = %+v (%v)", audio, derr)
				}
			}

			res, err := conf.EmbeddedResource(ctx)
			if err != nil || res.Type != "resource" || res.Resource == nil ||
				res.Resource.URI != embeddedURI || res.Resource.MIMEType != "text/plain" || res.Resource.Text != embeddedText || res.Resource.Blob != "" {
				t.Errorf("EmbeddedResource = %+v, %v", res, err)
			}

			mixed, err := conf.MultipleContentTypes(ctx)
			if err != nil || len(mixed) != 3 {
				t.Fatalf("MultipleContentTypes = %+v, %v", mixed, err)
			}
			if mixed[0].Type != "text" || mixed[1].Type != "image" || mixed[2].Type != "resource" ||
				mixed[2].Resource.URI != mixedURI || mixed[2].Resource.Text != mixedJSON || !json.Valid([]byte(mixed[2].Resource.Text)) {
				t.Errorf("MultipleContentTypes = %+v", mixed)
			}
			checkRedPixel(t, mixed[1].Data)

			greeting, err := conf.JSONSchema(ctx, person{Name: "Ada", Address: &address{Street: "1 Main St", City: "London"}})
			if err != nil || greeting.Text != "Hello, Ada, of 1 Main St in London!" {
				t.Errorf("JSONSchema = %+v, %v", greeting, err)
			}

			// In process there is no stream to close: the call just finishes.
			done, err := conf.Reconnection(ctx)
			if err != nil || done.Text != "Done (the transport kept the stream open)." {
				t.Errorf("Reconnection = %+v, %v", done, err)
			}
		})
	}
}

// checkRedPixel checks that data is the base64 of a 1x1 red PNG.
func checkRedPixel(t *testing.T, data string) {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatalf("image data: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("image: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1 || b.Dy() != 1 {
		t.Errorf("image is %v, want 1x1", b)
	}
	if got := color.RGBAModel.Convert(img.At(0, 0)); got != (color.RGBA{R: 255, A: 255}) {
		t.Errorf("pixel %v, want red", got)
	}
}

func TestErrorHandling(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20241105, mcp.Version20251125, mcp.Version20260728} {
		c, _ := connect(t, version)
		_, err := NewConformanceMCPClient(c).ErrorHandling(ctx)
		var re *runtime.Error
		if !errors.As(err, &re) || re.Message != errorText || re.Code != runtime.CodeServerError {
			t.Errorf("%s: ErrorHandling error = %v", version, err)
		}
		res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "test_error_handling", Arguments: json.RawMessage(`{}`)})
		if err != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].Text != errorText {
			t.Errorf("%s: raw result %+v, %v", version, res, err)
		}
		// Arguments the schema does not allow are a tool error naming them.
		res, err = c.CallToolRaw(ctx, mcp.CallToolParams{Name: "json_schema_2020_12_tool", Arguments: json.RawMessage(`{"name":"x","age":3}`)})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, `unknown field "age"`) {
			t.Errorf("%s: bad arguments: %+v, %v", version, res, err)
		}
	}
}

func TestProgressAndLogging(t *testing.T) {
	ctx := context.Background()
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			c, l := connect(t, version)
			var progress []mcp.ProgressNotification
			res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "test_tool_with_progress",
				OnProgress: func(p mcp.ProgressNotification) { progress = append(progress, p) }})
			if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Type != "text" {
				t.Fatalf("with progress: %+v, %v", res, err)
			}
			var got []float64
			for _, p := range progress {
				got = append(got, p.Progress)
				if p.Total != 100 {
					t.Errorf("progress total %v, want 100", p.Total)
				}
			}
			if !slices.Equal(got, []float64{0, 50, 100}) {
				t.Errorf("progress %v, want [0 50 100]", got)
			}

			if err := c.SetLogLevel(ctx, "debug"); err != nil {
				t.Fatal(err)
			}
			text, err := NewConformanceMCPClient(c).WithLogging(ctx)
			if err != nil || text.Type != "text" {
				t.Fatalf("with logging: %+v, %v", text, err)
			}
			var msgs []string
			for _, m := range l.take() {
				var s string
				if m.Level != "info" || m.Logger != "conformance" || json.Unmarshal(m.Data, &s) != nil {
					t.Errorf("log message %+v", m)
				}
				msgs = append(msgs, s)
			}
			if want := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}; !slices.Equal(msgs, want) {
				t.Errorf("log messages %q, want %q", msgs, want)
			}
		})
	}
}

// TestHTTP serves the fixture as main does and calls it over HTTP with the
// mcphttp client: over a legacy session test_reconnection really closes its
// stream, and the client gets the result by resuming it.
func TestHTTP(t *testing.T) {
	rpctest.CheckLeaks(t)
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "127.0.0.1:0", time.Millisecond, slog.New(slog.DiscardHandler), w)
		w.Close()
	}()
	url, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp\n") {
		t.Fatalf("URL line %q, %v", url, err)
	}
	go io.Copy(io.Discard, r) //nolint:errcheck // nothing more is written

	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		l := new(logs)
		c, err := mcphttpclient.Connect(ctx, strings.TrimSpace(url), &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: version, OnLog: l.add}})
		if err != nil {
			t.Fatalf("%s: connect: %v", version, err)
		}
		conf := NewConformanceMCPClient(c)
		want := "Done, after closing the stream."
		if version == mcp.Version20260728 {
			want = "Done (the transport kept the stream open)." // closing would cancel the call
		}
		if got, err := conf.Reconnection(ctx); err != nil || got.Text != want {
			t.Errorf("%s: Reconnection = %+v, %v; want %q", version, got, err, want)
		}
		if mixed, err := conf.MultipleContentTypes(ctx); err != nil || len(mixed) != 3 {
			t.Errorf("%s: MultipleContentTypes = %+v, %v", version, mixed, err)
		}
		if _, err := conf.ErrorHandling(ctx); err == nil || err.Error() != "jsonrpc: "+errorText+" (code -32000)" {
			t.Errorf("%s: ErrorHandling: %v", version, err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("%s: close: %v", version, err)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestJSONRPC calls the same methods through the generated JSON-RPC client
// and dispatcher: content travels as its JSON, and an error as a JSON-RPC
// error.
func TestJSONRPC(t *testing.T) {
	ctx := context.Background()
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: NewConformanceHandler(newFixture(time.Millisecond))})
	conn := runtime.NewConn(b, runtime.Options{})
	t.Cleanup(func() { conn.Close(); server.Close() })
	client := NewConformanceClient(conn)

	if text, err := client.SimpleText(ctx); err != nil || text.Type != "text" || text.Text != simpleText {
		t.Errorf("SimpleText = %+v, %v", text, err)
	}
	mixed, err := client.MultipleContentTypes(ctx)
	if err != nil || len(mixed) != 3 || mixed[2].Resource == nil || mixed[2].Resource.Text != mixedJSON {
		t.Errorf("MultipleContentTypes = %+v, %v", mixed, err)
	}
	checkRedPixel(t, mixed[1].Data)
	var raw json.RawMessage
	if err := conn.Call(ctx, ConformanceEmbeddedResourceMethod, nil, &raw); err != nil ||
		string(raw) != `{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}` {
		t.Errorf("EmbeddedResource on the wire: %s, %v", raw, err)
	}
	_, err = client.ErrorHandling(ctx)
	if re := rpctest.WantError(t, err, -32000); re != nil && re.Message != errorText {
		t.Errorf("ErrorHandling: %v", err)
	}
}
