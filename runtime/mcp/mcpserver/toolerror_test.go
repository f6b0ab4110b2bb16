package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// errorServer serves tools that fail in each way a handler can.
func errorServer() *mcpserver.Server {
	fail := func(err error) func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, err }
	}
	typed := runtime.NewError(1001, "division by zero").WithData(map[string]int{"dividend": 7})
	declared := []mcpserver.DeclaredError{{Name: "Overflow", Code: 1002}, {Name: "DivisionByZero", Code: 1001}}
	srv := mcpserver.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	srv.AddTools(
		mcpserver.Tool{Name: "typed", OutputSchema: json.RawMessage(`{"type":"object"}`), Handler: fail(typed)},
		mcpserver.Tool{Name: "wrapped", Handler: fail(fmt.Errorf("divide: %w", typed))},
		mcpserver.Tool{Name: "plain", Handler: fail(errors.New("disk full"))},
		mcpserver.Tool{Name: "content", Content: true, Handler: fail(typed)},
		mcpserver.Tool{Name: "declared", Errors: declared, Handler: fail(fmt.Errorf("divide: %w", typed))},
		mcpserver.Tool{Name: "declared-nodata", Errors: declared, Handler: fail(runtime.NewError(1001, "division by zero"))},
		mcpserver.Tool{Name: "declared-other", Errors: declared, Handler: fail(errors.New("disk full"))},
	)
	return srv
}

// TestToolErrorWire: a failed call's result keeps the text for the model and
// carries code, message and data under _meta's MetaError key, merged with
// the serverInfo member in 2026-07-28; an error the tool declares is named
// in the text, and its data follows in a second text block.
func TestToolErrorWire(t *testing.T) {
	const typed = `{"content":[{"type":"text","text":"division by zero"}],"isError":true`
	const typedMeta = `"io.github.rpcgen/error":{"code":1001,"message":"division by zero","data":{"dividend":7}}`
	const declared = `{"content":[{"type":"text","text":"DivisionByZero (code 1001): division by zero"},` +
		`{"type":"text","text":"{\"code\":1001,\"message\":\"division by zero\",\"data\":{\"dividend\":7}}"}],"isError":true`
	cases := []struct{ version, tool, want string }{
		{"2024-11-05", "typed", typed + `,"_meta":{` + typedMeta + `}}`},
		{"2025-11-25", "typed", typed + `,"_meta":{` + typedMeta + `}}`},
		{"2026-07-28", "typed", typed + `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"},` + typedMeta + `}}`},
		{"2025-11-25", "wrapped", typed + `,"_meta":{` + typedMeta + `}}`},
		{"2025-11-25", "content", typed + `,"_meta":{` + typedMeta + `}}`},
		{"2025-11-25", "plain", `{"content":[{"type":"text","text":"disk full"}],"isError":true,"_meta":{"io.github.rpcgen/error":{"code":-32000,"message":"disk full"}}}`},
		// A declared error: its name and code in the text the model
		// reads, its data in a second block any client can decode.
		{"2025-11-25", "declared", declared + `,"_meta":{` + typedMeta + `}}`},
		{"2026-07-28", "declared", declared + `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"c","version":"1"},` + typedMeta + `}}`},
		{"2025-11-25", "declared-nodata", `{"content":[{"type":"text","text":"DivisionByZero (code 1001): division by zero"}],"isError":true,"_meta":{"io.github.rpcgen/error":{"code":1001,"message":"division by zero"}}}`},
		{"2025-11-25", "declared-other", `{"content":[{"type":"text","text":"disk full"}],"isError":true,"_meta":{"io.github.rpcgen/error":{"code":-32000,"message":"disk full"}}}`},
	}
	srv := errorServer()
	for _, c := range cases {
		if got := callIn(t, srv, c.version, c.tool); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.version, c.tool, got, c.want)
		}
	}
}

// TestToolErrorClient: Client.CallTool returns a *ToolError whose Err (and
// errors.As) is the server's *runtime.Error; the generated clients' helpers
// return that *runtime.Error itself, as the typed JSON-RPC client does.
func TestToolErrorClient(t *testing.T) {
	ctx := context.Background()
	want := &runtime.Error{Code: 1001, Message: "division by zero", Data: json.RawMessage(`{"dividend":7}`)}
	same := func(got *runtime.Error, want *runtime.Error) bool {
		return got != nil && got.Code == want.Code && got.Message == want.Message && string(got.Data) == string(want.Data)
	}
	for _, version := range []string{mcp.Version20241105, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		c, err := mcpclient.ConnectTransport(ctx, errorServer().InProcess(), mcpclient.Options{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		err = c.CallTool(ctx, "typed", nil, nil)
		var te *mcp.ToolError
		var re *runtime.Error
		if !errors.As(err, &te) || te.Text != "division by zero" || !same(te.Err, want) {
			t.Errorf("%s: CallTool = %#v; want a *ToolError carrying %v", version, err, want)
		}
		if !errors.As(err, &re) || !same(re, want) {
			t.Errorf("%s: errors.As(*runtime.Error) on %v = %v", version, err, re)
		}
		_, err = mcp.CallTool[struct{}](ctx, c, "typed", nil)
		if re, ok := err.(*runtime.Error); !ok || !same(re, want) {
			t.Errorf("%s: mcp.CallTool = %#v; want %v", version, err, want)
		}
		_, err = mcp.CallToolWrapped[int](ctx, c, "wrapped", nil)
		if re, ok := err.(*runtime.Error); !ok || !same(re, want) {
			t.Errorf("%s: mcp.CallToolWrapped = %#v; want %v", version, err, want)
		}
		err = mcp.CallToolNoResult(ctx, c, "plain", nil)
		if re, ok := err.(*runtime.Error); !ok || re.Code != runtime.CodeServerError || re.Message != "disk full" || re.Data != nil {
			t.Errorf("%s: mcp.CallToolNoResult = %#v; want code -32000, message \"disk full\"", version, err)
		}
		_, err = mcp.CallToolContent(ctx, c, "content", nil)
		if re, ok := err.(*runtime.Error); !ok || !same(re, want) {
			t.Errorf("%s: mcp.CallToolContent = %#v; want %v", version, err, want)
		}
		c.Close()
	}
}

// TestToolErrorWithoutMeta: an error result from a server that sends no
// MetaError (another implementation, or a malformed one) stays a *ToolError
// with no Err, and errors.As finds no *runtime.Error.
func TestToolErrorWithoutMeta(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	srv.AddTools(
		mcpserver.Tool{Name: "bare", Content: true, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"content":[{"type":"text","text":"nope"}],"isError":true}`), nil
		}},
		mcpserver.Tool{Name: "bad", Content: true, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`{"content":[],"isError":true,"_meta":{"io.github.rpcgen/error":{"message":"no code"}}}`), nil
		}},
	)
	ctx := context.Background()
	c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for tool, text := range map[string]string{"bare": "nope", "bad": "tool bad failed"} {
		err := mcp.CallToolNoResult(ctx, c, tool, nil)
		var te *mcp.ToolError
		var re *runtime.Error
		if !errors.As(err, &te) || te.Text != text || te.Err != nil || errors.As(err, &re) {
			t.Errorf("%s: %#v; want a *ToolError %q without a *runtime.Error", tool, err, text)
		}
	}
}

// TestNotifyTool: the call of a notification's tool returns before the tool
// has run, the tool still runs, and at most 64 such calls are in flight: the
// next waits for a slot, or for its context.
func TestNotifyTool(t *testing.T) {
	release := make(chan struct{})
	ran := make(chan string, 100)
	srv := mcpserver.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "touch", Handler: func(_ context.Context, args json.RawMessage) (json.RawMessage, error) {
		<-release
		ran <- string(args)
		return nil, nil
	}})
	ctx := context.Background()
	c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 64 {
		if err := mcp.NotifyTool(ctx, c, "touch", map[string]int{"n": i}); err != nil {
			t.Fatalf("NotifyTool %d: %v", i, err)
		}
	}
	full, cancel := context.WithCancel(ctx)
	cancel()
	if err := mcp.NotifyTool(full, c, "touch", map[string]int{"n": 64}); !errors.Is(err, context.Canceled) {
		t.Errorf("the 65th NotifyTool with a cancelled context: %v; want context.Canceled", err)
	}
	close(release)
	seen := map[string]bool{}
	for range 64 {
		seen[<-ran] = true
	}
	if !seen[`{"n":0}`] || !seen[`{"n":63}`] || len(seen) != 64 {
		t.Errorf("the tool ran with %d distinct arguments; want 64", len(seen))
	}
	if err := mcp.NotifyTool(ctx, c, "touch", func() {}); err == nil {
		t.Error("NotifyTool with arguments that cannot be encoded: no error")
	}
}
