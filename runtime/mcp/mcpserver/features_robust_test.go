package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// featureServer has a resource, a template, a prompt with a completer, and a
// tool that elicits, so every new method has something to act on.
func featureServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "f", Version: "1"}, nil)
	read := func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: req.URI, Text: "x"}}, nil
	}
	srv.AddResources(mcpserver.Resource{URI: "test://a", Name: "a", Handler: read})
	srv.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "test://t/{id}", Name: "t", Handler: read})
	srv.AddPrompts(mcpserver.Prompt{
		Name:      "p",
		Arguments: []mcp.PromptArgument{{Name: "x", Required: true}},
		Handler: func(_ context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent(args["x"])}}}, nil
		},
		Complete: func(context.Context, *mcpserver.CompleteRequest) (*mcp.Completion, error) {
			return &mcp.Completion{Values: []string{"v"}}, nil
		},
	})
	srv.AddTools(mcpserver.Tool{Name: "ask", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		r, err := ask.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)})
		if err != nil {
			return nil, err
		}
		return json.RawMessage(`{"action":"` + r.Action + `"}`), nil
	}})
	return srv
}

const featureMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// TestFeatureParamsMalformed sends each new method params of the wrong shape,
// in a legacy session and statelessly: every one gets a JSON-RPC error (no
// result, no panic), and the session keeps serving.
func TestFeatureParamsMalformed(t *testing.T) {
	cases := []struct{ method, params string }{
		{"resources/read", `{}`},
		{"resources/read", `{"uri":7}`},
		{"resources/read", `{"uri":"relative/path"}`},
		{"resources/read", `{"uri":"test://nope"}`},
		{"resources/read", `{"uri":"test://a\u0000b"}`},
		{"resources/read", `{"uri":"file:///etc/../../passwd"}`},
		{"resources/read", `{"uri":"file:///a/%2e%2e/%2e%2e/b"}`},
		{"resources/list", `{"cursor":"bogus"}`},
		{"resources/list", `{"cursor":12}`},
		{"resources/templates/list", `{"cursor":"bogus"}`},
		{"prompts/list", `{"cursor":"bogus"}`},
		{"prompts/get", `{}`},
		{"prompts/get", `{"name":"nope"}`},
		{"prompts/get", `{"name":"p"}`},
		{"prompts/get", `{"name":"p","arguments":[1]}`},
		{"prompts/get", `{"name":"p","arguments":{"x":5}}`},
		{"prompts/get", `{"name":["p"]}`},
		{"completion/complete", `{}`},
		{"completion/complete", `{"ref":"p","argument":{"name":"x","value":""}}`},
		{"completion/complete", `{"ref":{"type":"ref/other","name":"p"},"argument":{"name":"x","value":""}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"x","value":7}}`},
		{"completion/complete", `{"ref":{"type":"ref/resource","uri":"test://nope/{x}"},"argument":{"name":"x","value":""}}`},
		{"tools/call", `{"name":"ask","arguments":{},"inputResponses":[1],"requestState":"x"}`},
		{"tools/call", `{"name":"ask","arguments":{},"inputResponses":{"elicitation/create#0":{"action":"accept"}},"requestState":7}`},
		{"tools/call", `{"name":"ask","arguments":{},"inputResponses":{},"requestState":"AAAA"}`},
	}
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			srv := featureServer()
			ss := srv.NewSession()
			ctx := context.Background()
			if era == "legacy" {
				reply := ss.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`), nil)
				if !strings.Contains(string(reply), `"result"`) {
					t.Fatalf("initialize: %s", reply)
				}
			}
			for i, c := range cases {
				params := c.params
				if era == "modern" {
					params = "{" + featureMeta + "," + params[1:]
					if params[len(params)-2] == ',' { // the params were {}
						params = params[:len(params)-2] + "}"
					}
				}
				if era == "legacy" && (strings.Contains(params, "requestState") || strings.Contains(params, "inputResponses")) {
					continue // multi-round-trip members are 2026-07-28's
				}
				msg := `{"jsonrpc":"2.0","id":1,"method":"` + c.method + `","params":` + params + `}`
				reply := ss.Handle(ctx, []byte(msg), nil)
				var r struct {
					Result json.RawMessage `json:"result"`
					Error  *struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				if err := json.Unmarshal(reply, &r); err != nil {
					t.Fatalf("case %d %s %s: reply %q is not JSON: %v", i, c.method, params, reply, err)
				}
				if r.Error == nil || r.Result != nil {
					t.Errorf("case %d %s %s: %s; want an error", i, c.method, params, reply)
					continue
				}
				if r.Error.Code == -32603 || r.Error.Code == -32000 {
					t.Errorf("case %d %s %s: %s; want a client error, not an internal one", i, c.method, params, reply)
				}
			}
			// Still serving.
			ping := `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"p","arguments":{"x":"ok"}}}`
			if era == "modern" {
				ping = `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{` + featureMeta + `,"name":"p","arguments":{"x":"ok"}}}`
			}
			if reply := ss.Handle(ctx, []byte(ping), nil); !strings.Contains(string(reply), `"text":"ok"`) {
				t.Fatalf("after the malformed requests: %s", reply)
			}
		})
	}
}
