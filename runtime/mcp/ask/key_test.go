package ask_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/ask"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// keyedServer has a tool asking two named questions in one round
// (elicitation "user_name", sampling "capital"), one asking twice under one
// key, and one reporting StateVerified.
func keyedServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "keys", Version: "1"}, nil)
	srv.AddTools(
		mcpserver.Tool{Name: "both", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			e, err1 := ask.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}, ask.Key("user_name"))
			s, err2 := ask.Sample(ctx, &mcp.CreateMessageParams{Messages: []mcp.SamplingMessage{{Role: "user", Content: mcp.TextContent("Capital?")}}, MaxTokens: 9}, ask.Key("capital"))
			if err1 != nil || err2 != nil {
				return nil, mcpserver.ErrInputRequired
			}
			return json.Marshal(map[string]any{"name": e.Content, "capital": s.Content.Text, "verified": ask.StateVerified(ctx)})
		}},
		mcpserver.Tool{Name: "dup", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			ask.ListRoots(ctx, ask.Key("k"))
			_, err := ask.ListRoots(ctx, ask.Key("k"))
			return nil, err
		}},
	)
	return srv
}

type keyedClient struct {
	t  *testing.T
	ss *mcpserver.Session
	id int
}

func (c *keyedClient) call(tool, extra string) map[string]json.RawMessage {
	c.t.Helper()
	c.id++
	msg := `{"jsonrpc":"2.0","id":` + strconv.Itoa(c.id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` + extra +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}}}}`
	reply := c.ss.Handle(context.Background(), []byte(msg), func([]byte) {})
	var r struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(reply, &r); err != nil || r.Result == nil {
		c.t.Fatalf("reply %s", reply)
	}
	return r.Result
}

const keyedAnswers = `"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}},"capital":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}},`

// TestKeys: the questions go out under the keys the handler named, both in
// the one round; the retry is answered under them, with or without the
// state; StateVerified tells which.
func TestKeys(t *testing.T) {
	c := &keyedClient{t: t, ss: keyedServer().NewSession()}
	r := c.call("both", "")
	if string(r["resultType"]) != `"input_required"` {
		t.Fatalf("result %v", r)
	}
	var requests map[string]struct{ Method string }
	json.Unmarshal(r["inputRequests"], &requests)
	if len(requests) != 2 || requests["user_name"].Method != "elicitation/create" || requests["capital"].Method != "sampling/createMessage" {
		t.Errorf("inputRequests %s", r["inputRequests"])
	}
	for _, tc := range []struct {
		name, extra, verified string
	}{
		{"with the state", keyedAnswers + `"requestState":` + string(r["requestState"]) + `,`, "true"},
		{"without a state", keyedAnswers, "false"},
	} {
		got := c.call("both", tc.extra)
		want := `{"capital":"Paris","name":{"name":"Ada"},"verified":` + tc.verified + `}`
		if string(got["structuredContent"]) != want {
			t.Errorf("%s: result %v, want structuredContent %s", tc.name, got, want)
		}
	}
}

// TestDuplicateKey: two questions of one call under one key are the
// handler's error.
func TestDuplicateKey(t *testing.T) {
	c := &keyedClient{t: t, ss: keyedServer().NewSession()}
	r := c.call("dup", "")
	if string(r["isError"]) != "true" || !strings.Contains(string(r["content"]), `two questions of one call under the key \"k\"`) {
		t.Errorf("result %v", r)
	}
}
