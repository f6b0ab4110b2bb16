package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// The tools these tests call ask the client for input, each in one way, and
// return what they got as their structured result.

const nameSchema = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`

func inputTools(seen chan<- error) []Tool {
	report := func(err error) {
		if seen != nil {
			seen <- err
		}
	}
	return []Tool{
		{Name: "ask", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			r, err := elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(nameSchema)})
			report(err)
			if err != nil {
				return nil, err
			}
			return marshal(r), nil
		}},
		{Name: "ask_url", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			r, err := elicit(ctx, &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"})
			if err != nil {
				return nil, err
			}
			return marshal(r), nil
		}},
		{Name: "sample", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			r, err := sample(ctx, &mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: "user", Content: mcp.Content{Type: "text", Text: "Capital of France?"}}},
				MaxTokens: 50,
			})
			if err != nil {
				return nil, err
			}
			return marshal(map[string]string{"text": r.Content.Text, "model": r.Model}), nil
		}},
		{Name: "roots", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			roots, err := listRoots(ctx)
			if err != nil {
				return nil, err
			}
			return marshal(map[string][]mcp.Root{"roots": roots}), nil
		}},
		{Name: "twice", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
			first, err := elicit(ctx, &mcp.ElicitParams{Message: "First?", RequestedSchema: json.RawMessage(nameSchema)})
			if err != nil {
				return nil, err
			}
			second, err := elicit(ctx, &mcp.ElicitParams{Message: "Second?", RequestedSchema: json.RawMessage(nameSchema)})
			if err != nil {
				return nil, err
			}
			return marshal(map[string]json.RawMessage{"first": first.Content, "second": second.Content}), nil
		}},
		{Name: "nested", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			_, err := elicit(ctx, &mcp.ElicitParams{Message: "Bad", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{}}}}`)})
			return nil, err
		}},
	}
}

func newInputServer(seen chan<- error, opts *Options) *Server {
	srv := New(mcp.Implementation{Name: "asker", Version: "1.0.0"}, opts)
	srv.AddTools(inputTools(seen)...)
	return srv
}

// pipeClient is a fake client over runtime pipes: handler answers the
// server's requests.
func pipeClient(t *testing.T, srv *Server, version, caps string, handler runtime.HandlerFunc) *runtime.Conn {
	t.Helper()
	a, b := runtime.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, a) }()
	c := runtime.NewConn(b, runtime.Options{Handler: handler, CancelMethod: mcp.NotificationCancelled, CancelIDKey: cancelledIDMember})
	t.Cleanup(func() {
		c.Close()
		cancel()
		<-done
	})
	init := map[string]any{"protocolVersion": version, "capabilities": json.RawMessage(caps), "clientInfo": map[string]string{"name": "fake", "version": "0"}}
	if err := c.Call(context.Background(), "initialize", init, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Notify(context.Background(), "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return c
}

func callToolOn(ctx context.Context, c *runtime.Conn, name string) (json.RawMessage, error) {
	var res json.RawMessage
	err := c.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, &res)
	return res, err
}

// structured returns the structuredContent of a tools/call result, failing
// the test on a tool error.
func structured(t *testing.T, res json.RawMessage) string {
	t.Helper()
	var r struct {
		StructuredContent json.RawMessage
		IsError           bool
		Content           []mcp.Content
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError {
		t.Fatalf("tool failed: %s (%v)", res, err)
	}
	return string(r.StructuredContent)
}

func TestLegacyElicitOverConn(t *testing.T) {
	for _, tc := range []struct {
		version, wantParams string
	}{
		{"2025-06-18", `{"message":"Name?","requestedSchema":` + nameSchema + `}`},
		{"2025-11-25", `{"mode":"form","message":"Name?","requestedSchema":` + nameSchema + `}`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			srv := newInputServer(nil, nil)
			params := make(chan string, 1)
			c := pipeClient(t, srv, tc.version, `{"elicitation":{}}`, func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
				if req.Method != "elicitation/create" {
					return nil, runtime.ErrMethodNotFound(req.Method)
				}
				params <- string(req.Params)
				return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
			})
			res, err := callToolOn(context.Background(), c, "ask")
			if err != nil {
				t.Fatal(err)
			}
			wantJSON(t, <-params, tc.wantParams)
			wantJSON(t, structured(t, res), `{"action":"accept","content":{"name":"Ada"}}`)
		})
	}
}

func TestLegacySampleAndRootsOverConn(t *testing.T) {
	srv := newInputServer(nil, nil)
	got := make(chan string, 2)
	c := pipeClient(t, srv, "2025-11-25", `{"sampling":{},"roots":{"listChanged":true}}`, func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		got <- req.Method + " " + string(req.Params)
		switch req.Method {
		case "sampling/createMessage":
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m1","stopReason":"endTurn"}`), nil
		case "roots/list":
			return json.RawMessage(`{"roots":[{"uri":"file:///src","name":"src"}]}`), nil
		}
		return nil, runtime.ErrMethodNotFound(req.Method)
	})
	res, err := callToolOn(context.Background(), c, "sample")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, structured(t, res), `{"text":"Paris","model":"m1"}`)
	if g := <-got; !strings.HasPrefix(g, "sampling/createMessage ") {
		t.Errorf("client got %s", g)
	} else {
		wantJSON(t, strings.TrimPrefix(g, "sampling/createMessage "), `{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":50}`)
	}
	res, err = callToolOn(context.Background(), c, "roots")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, structured(t, res), `{"roots":[{"uri":"file:///src","name":"src"}]}`)
	if g := <-got; g != "roots/list {}" {
		t.Errorf("client got %s, want roots/list {}", g)
	}
}

func TestLegacyMissingCapability(t *testing.T) {
	for _, tc := range []struct {
		version, caps, tool, data string
	}{
		{"2025-11-25", `{}`, "ask", `{"requiredCapabilities":{"elicitation":{}}}`},
		{"2025-11-25", `{"elicitation":null}`, "ask", `{"requiredCapabilities":{"elicitation":{}}}`},
		{"2025-11-25", `{"elicitation":{"form":{}}}`, "ask_url", `{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
		{"2025-11-25", `{"elicitation":{}}`, "ask_url", `{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
		{"2025-11-25", `{"elicitation":{"url":{}}}`, "ask", `{"requiredCapabilities":{"elicitation":{"form":{}}}}`},
		{"2025-06-18", `{"elicitation":{"url":{}}}`, "ask_url", `{"requiredCapabilities":{"elicitation":{"url":{}}}}`},
		{"2025-03-26", `{"elicitation":{}}`, "ask", `{"requiredCapabilities":{"elicitation":{}}}`}, // no elicitation yet
		{"2025-11-25", `{"elicitation":{}}`, "sample", `{"requiredCapabilities":{"sampling":{}}}`},
		{"2025-11-25", `{"sampling":{}}`, "roots", `{"requiredCapabilities":{"roots":{}}}`},
	} {
		t.Run(tc.version+" "+tc.caps+" "+tc.tool, func(t *testing.T) {
			srv := newInputServer(nil, nil)
			asked := make(chan string, 1)
			c := pipeClient(t, srv, tc.version, tc.caps, func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
				asked <- req.Method
				return nil, runtime.ErrMethodNotFound(req.Method)
			})
			_, err := callToolOn(context.Background(), c, tc.tool)
			re := rpctest.WantError(t, err, mcp.CodeMissingClientCapability)
			if re != nil {
				wantJSON(t, string(re.Data), tc.data)
			}
			select {
			case m := <-asked:
				t.Errorf("the client was asked %s", m)
			default:
			}
		})
	}
}

func TestLegacyURLElicitation(t *testing.T) {
	srv := newInputServer(nil, nil)
	params := make(chan string, 1)
	c := pipeClient(t, srv, "2025-11-25", `{"elicitation":{"url":{}}}`, func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		params <- string(req.Params)
		return json.RawMessage(`{"action":"accept"}`), nil
	})
	res, err := callToolOn(context.Background(), c, "ask_url")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, <-params, `{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"e1"}`)
	wantJSON(t, structured(t, res), `{"action":"accept"}`)
}

func TestLegacyClientErrors(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		errObj       *runtime.Error
		want         string
	}{
		{name: "error response", errObj: &runtime.Error{Code: -32600, Message: "user closed the dialog"}, want: "user closed the dialog"},
		{name: "bad action", answer: `{"action":"maybe"}`, want: `has action`},
		{name: "not an object", answer: `[1]`, want: "malformed elicitation/create result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newInputServer(nil, nil)
			c := pipeClient(t, srv, "2025-11-25", `{"elicitation":{}}`, func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
				if tc.errObj != nil {
					return nil, tc.errObj
				}
				return json.RawMessage(tc.answer), nil
			})
			res, err := callToolOn(context.Background(), c, "ask")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), tc.want) {
				t.Errorf("result %s, want a tool error saying %q", res, tc.want)
			}
		})
	}
}

func TestLegacyBadSchema(t *testing.T) {
	srv := newInputServer(nil, nil)
	c := pipeClient(t, srv, "2025-11-25", `{"elicitation":{}}`, func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		t.Errorf("the client was asked %s", req.Method)
		return nil, runtime.ErrMethodNotFound(req.Method)
	})
	res, err := callToolOn(context.Background(), c, "nested")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), "not a primitive") {
		t.Errorf("result %s, want a tool error about the schema", res)
	}
}

func TestCheckElicitSchema(t *testing.T) {
	for _, s := range []string{
		``,
		`{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"email"},"b":{"type":"integer","minimum":1},"c":{"type":"boolean","default":true},"d":{"type":"number"}}}`,
		`{"type":"object","properties":{"e":{"type":"string","enum":["x","y"]},"f":{"type":"string","oneOf":[{"const":"x","title":"X"}]}}}`,
		`{"type":"object","properties":{"g":{"type":"array","items":{"type":"string","enum":["x"]}},"h":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}}}`,
	} {
		if _, err := checkElicitSchema(json.RawMessage(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{
		`{"type":"string"}`,
		`{"properties":{}}`,
		`{"type":"object","properties":{"a":{"type":"object"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`,
		`{"type":"object","properties":{"a":{"type":"string","properties":{}}}}`,
		`{"type":"object","properties":{"a":{}}}`,
		`[]`,
	} {
		if _, err := checkElicitSchema(json.RawMessage(s)); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
}

// The client cancels its tools/call while the tool waits for an answer: the
// tool sees its context end, and the server cancels its request to the
// client.
func TestLegacyCancelOverConn(t *testing.T) {
	seen := make(chan error, 1)
	srv := newInputServer(seen, nil)
	asked := make(chan struct{})
	clientCancelled := make(chan struct{})
	c := pipeClient(t, srv, "2025-11-25", `{"elicitation":{}}`, func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		close(asked)
		<-ctx.Done() // released by the server's notifications/cancelled
		close(clientCancelled)
		return nil, runtime.ErrNoResponse
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := callToolOn(ctx, c, "ask")
		errc <- err
	}()
	<-asked
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client call: %v", err)
	}
	if err := <-seen; !errors.Is(err, context.Canceled) {
		t.Errorf("Elicit returned %v, want context.Canceled", err)
	}
	<-clientCancelled
}

// wantJSON fails the test unless got is the JSON want (member order aside).
func wantJSON(t *testing.T, got, want string) {
	t.Helper()
	if !rpctest.SameJSON(t, got, want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
