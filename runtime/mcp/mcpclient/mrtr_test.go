package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// clientMRTRServer answers tools/call, prompts/get and resources/read like a
// 2026-07-28 server asking for input: round 1 asks for elicitation, sampling
// and roots (one key with an escape), round 2 sheds load (requestState
// only), round 3 completes. It checks every retry and reports problems with
// t.Errorf.
func clientMRTRServer(t *testing.T, ids *[]string) func(p *clientFakePeer, m clientFakeMsg) {
	var first map[string]json.RawMessage
	return func(p *clientFakePeer, m clientFakeMsg) {
		var params map[string]json.RawMessage
		json.Unmarshal(m.Params, &params)
		*ids = append(*ids, string(m.ID))
		state, responses := params["requestState"], params["inputResponses"]
		delete(params, "requestState")
		delete(params, "inputResponses")
		delete(params, "_meta")
		if first == nil {
			first = params
		} else if !reflect.DeepEqual(params, first) {
			t.Errorf("retry params %v, first %v", params, first)
		}
		switch string(state) {
		case "":
			if responses != nil {
				t.Errorf("first request with inputResponses %s", responses)
			}
			p.reply(m, `{"resultType":"input_required","inputRequests":{`+
				`"login":{"method":"elicitation/create","params":`+clientElicitParams+`},`+
				`"capital\u0021":{"method":"sampling/createMessage","params":`+clientSampleParams+`},`+
				`"roots":{"method":"roots/list"}},"requestState":"s1\u002b"}`)
		case `"s1\u002b"`:
			want := `{"login":` + clientElicitAnswer + `,"capital!":` + clientSampleAnswer + `,"roots":` + clientRootsAnswer + `}`
			if !clientSameJSON(t, string(responses), want) {
				t.Errorf("inputResponses %s, want %s", responses, want)
			}
			p.reply(m, `{"resultType":"input_required","requestState":"s2"}`)
		case `"s2"`:
			if responses != nil {
				t.Errorf("retry after a state-only round with inputResponses %s", responses)
			}
			switch m.Method {
			case "tools/call":
				p.reply(m, `{"resultType":"complete","content":[],"structuredContent":{"sum":3}}`)
			case "prompts/get":
				p.reply(m, `{"resultType":"complete","messages":[{"role":"user","content":{"type":"text","text":"hi octocat"}}]}`)
			case "resources/read":
				p.reply(m, `{"resultType":"complete","contents":[{"uri":"test://x","text":"x"}]}`)
			}
		default:
			t.Errorf("requestState %s", state)
			p.fail(m, `{"code":-32602,"message":"requestState is invalid or expired"}`)
		}
	}
}

func TestClientModernInputRequired(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(c *mcpclient.Client) error
	}{
		{"CallTool", func(c *mcpclient.Client) error {
			var res clientSumResult
			err := c.CallTool(context.Background(), "sum", clientSumArgs{1, 2}, &res)
			if err == nil && res.Sum != 3 {
				err = fmt.Errorf("result %+v", res)
			}
			return err
		}},
		{"CallToolRaw", func(c *mcpclient.Client) error {
			res, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "sum", Arguments: map[string]int{"a": 1}})
			if err == nil && string(res.StructuredContent) != `{"sum":3}` {
				err = fmt.Errorf("result %+v", res)
			}
			return err
		}},
		{"GetPrompt", func(c *mcpclient.Client) error {
			res, err := c.GetPrompt(context.Background(), "greet", map[string]string{"who": "me"})
			if err == nil && (len(res.Messages) != 1 || res.Messages[0].Content.Text != "hi octocat") {
				err = fmt.Errorf("result %+v", res)
			}
			return err
		}},
		{"ReadResource", func(c *mcpclient.Client) error {
			res, err := c.ReadResource(context.Background(), "test://x")
			if err == nil && (len(res) != 1 || res[0].Text != "x") {
				err = fmt.Errorf("result %+v", res)
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids []string
			server := clientMRTRServer(t, &ids)
			_, f := newClientFakePeer(t, clientModernScript(server))
			opts := clientInputOptions()
			opts.ProtocolVersion = mcp.Version20260728
			c := clientConnect(t, f, opts)
			if err := tc.call(c); err != nil {
				t.Fatal(err)
			}
			if len(ids) != 3 || ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
				t.Errorf("request ids %v, want three distinct", ids)
			}
		})
	}
}

func TestClientModernInputErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   mcpclient.Options
		result string // the server's answer to every tools/call
		want   string // in the error
		rounds int    // how many tools/call the server should get
	}{
		{"no handler", mcpclient.Options{}, `{"resultType":"input_required","inputRequests":{"k":{"method":"roots/list"}}}`, "no handler", 1},
		{"unknown method", clientInputOptions(), `{"resultType":"input_required","inputRequests":{"k":{"method":"tools/list"}}}`, "tools/list", 1},
		{"handler fails", clientInputOptions(), `{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"fail"}}}}`, "no user here", 1},
		{"endless", clientInputOptions(), `{"resultType":"input_required","requestState":"again"}`, "after 10 rounds", 11},
		{"empty", clientInputOptions(), `{"resultType":"input_required"}`, "neither", 1},
		{"bad state", clientInputOptions(), `{"resultType":"input_required","requestState":5}`, "requestState", 1},
		{"bad request", clientInputOptions(), `{"resultType":"input_required","inputRequests":{"k":[1]}}`, "inputRequests", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			_, f := newClientFakePeer(t, clientModernScript(func(p *clientFakePeer, m clientFakeMsg) {
				mu.Lock()
				calls++
				mu.Unlock()
				p.reply(m, tc.result)
			}))
			opts := tc.opts
			opts.ProtocolVersion = mcp.Version20260728
			c := clientConnect(t, f, opts)
			err := c.CallTool(context.Background(), "t", nil, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if calls != tc.rounds {
				t.Errorf("the server got %d calls, want %d", calls, tc.rounds)
			}
		})
	}
}

func TestClientModernInputHandlerRuntimeError(t *testing.T) {
	_, f := newClientFakePeer(t, clientModernScript(func(p *clientFakePeer, m clientFakeMsg) {
		p.reply(m, `{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"reject"}}}}`)
	}))
	opts := clientInputOptions()
	opts.ProtocolVersion = mcp.Version20260728
	c := clientConnect(t, f, opts)
	_, err := c.GetPrompt(context.Background(), "p", nil)
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -1 {
		t.Errorf("GetPrompt: %v, want the handler's *runtime.Error", err)
	}
}

func TestClientLegacyIgnoresResultType(t *testing.T) {
	// A legacy server has no MRTR: the client never retries there.
	var mu sync.Mutex
	calls := 0
	_, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		mu.Lock()
		calls++
		mu.Unlock()
		p.reply(m, `{"resultType":"input_required","requestState":"x","messages":[]}`)
	}))
	c := clientConnect(t, f, clientInputOptions())
	if _, err := c.GetPrompt(context.Background(), "p", nil); err != nil {
		t.Errorf("GetPrompt: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 1 {
		t.Errorf("%d prompts/get sent, want 1", calls)
	}
}
