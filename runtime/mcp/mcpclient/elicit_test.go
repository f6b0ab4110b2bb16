package mcpclient_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// clientDefaultsSchema is the form of the SEP-1034 scenario: a field of each
// kind with a default, and one ("note") without.
const clientDefaultsSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","default":"John Doe"},` +
	`"age":{"type":"integer","default":30},` +
	`"score":{"type":"number","default":95.5},` +
	`"status":{"type":"string","enum":["active","inactive"],"default":"active"},` +
	`"verified":{"type":"boolean","default":true},` +
	`"note":{"type":"string"}}}`

// clientDefaultsCases are the host's answers and what must reach the server.
var clientDefaultsCases = []struct {
	name, answer, want string
}{
	{"empty content", `{"action":"accept","content":{}}`,
		`{"action":"accept","content":{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}}`},
	{"no content", `{"action":"accept"}`,
		`{"action":"accept","content":{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}}`},
	{"the user changed two fields", `{"action":"accept","content":{"note":"hi","age":41}}`,
		`{"action":"accept","content":{"note":"hi","age":41,"name":"John Doe","score":95.5,"status":"active","verified":true}}`},
	{"a field set to null is the user's", `{"action":"accept","content":{"name":null}}`,
		`{"action":"accept","content":{"name":null,"age":30,"score":95.5,"status":"active","verified":true}}`},
	{"decline", `{"action":"decline"}`, `{"action":"decline"}`},
	{"cancel", `{"action":"cancel"}`, `{"action":"cancel"}`},
}

func clientDefaultsOptions(t *testing.T, answer string) mcpclient.Options {
	return mcpclient.Options{OnElicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		r := new(mcp.ElicitResult)
		if err := json.Unmarshal([]byte(answer), r); err != nil {
			t.Fatal(err)
		}
		return r, nil
	}}
}

// TestClientElicitDefaultsLegacy: in a legacy session the answer to the
// server's elicitation/create request carries the schema's defaults for the
// fields the host left out, exactly as below on the wire.
func TestClientElicitDefaultsLegacy(t *testing.T) {
	for _, tc := range clientDefaultsCases {
		t.Run(tc.name, func(t *testing.T) {
			answers := newClientAnswers()
			peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
				if m.Method == "" {
					answers.add(m)
				}
			}))
			clientConnect(t, f, clientDefaultsOptions(t, tc.answer))
			peer.send(`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"message":"Your details","requestedSchema":` + clientDefaultsSchema + `}}`)
			got := answers.wait(t, `"e"`)[`"e"`]
			if string(got.Result) != tc.want {
				t.Errorf("answer %s\nwant result %s", got.raw, tc.want)
			}
		})
	}
}

// TestClientElicitDefaultsModern: in 2026-07-28 the retry's inputResponses
// carry the defaults.
func TestClientElicitDefaultsModern(t *testing.T) {
	for _, tc := range clientDefaultsCases {
		t.Run(tc.name, func(t *testing.T) {
			var responses json.RawMessage
			_, f := newClientFakePeer(t, clientModernScript(func(p *clientFakePeer, m clientFakeMsg) {
				var params struct {
					InputResponses json.RawMessage `json:"inputResponses"`
				}
				json.Unmarshal(m.Params, &params)
				if params.InputResponses == nil {
					p.reply(m, `{"resultType":"input_required","inputRequests":{"form":{"method":"elicitation/create","params":{"message":"Your details","requestedSchema":`+clientDefaultsSchema+`}}}}`)
					return
				}
				responses = params.InputResponses
				p.reply(m, `{"resultType":"complete","content":[]}`)
			}))
			opts := clientDefaultsOptions(t, tc.answer)
			opts.ProtocolVersion = mcp.Version20260728
			c := clientConnect(t, f, opts)
			if _, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "ask"}); err != nil {
				t.Fatal(err)
			}
			if want := `{"form":` + tc.want + `}`; string(responses) != want {
				t.Errorf("inputResponses %s\nwant %s", responses, want)
			}
		})
	}
}

// TestClientElicitNoDefaults: URL mode, a schema without defaults and an
// answer that is not an object pass as the host gave them.
func TestClientElicitNoDefaults(t *testing.T) {
	for _, tc := range []struct{ name, params, answer string }{
		{"url mode", `{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"x"}`, `{"action":"accept"}`},
		{"no defaults", `{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`, `{"action":"accept","content":{}}`},
		{"no schema", `{"message":"OK?"}`, `{"action":"accept","content":{"ok":true}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answers := newClientAnswers()
			peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
				if m.Method == "" {
					answers.add(m)
				}
			}))
			clientConnect(t, f, clientDefaultsOptions(t, tc.answer))
			peer.send(`{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":` + tc.params + `}`)
			if got := answers.wait(t, `"e"`)[`"e"`]; string(got.Result) != tc.answer {
				t.Errorf("answer %s, want result %s", got.raw, tc.answer)
			}
		})
	}
}
