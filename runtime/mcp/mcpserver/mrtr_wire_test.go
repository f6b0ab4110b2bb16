package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/askhook"
)

// The 2026-07-28 multi-round-trip flow on the wire, through Session.Handle:
// every request carries its _meta, and the client retries with a new id, the
// same params, inputResponses and the requestState it was given.

const (
	allCaps    = `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}`
	serverMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"asker","version":"1.0.0"}}`
	badState   = `{"code":-32602,"message":"invalid params: requestState is invalid or expired"}`
)

// modernClient sends 2026-07-28 requests to a session.
type modernClient struct {
	t    *testing.T
	ss   *Session
	caps string
	id   int
}

func newModernClient(t *testing.T, srv *Server) *modernClient {
	return &modernClient{t: t, ss: srv.NewSession(), caps: allCaps}
}

// send sends method with params (an object's members, without _meta) and
// extra members (inputResponses, requestState), and returns the reply.
func (c *modernClient) send(ctx context.Context, method, params, extra string) string {
	c.t.Helper()
	c.id++
	p := `{` + params
	if params != "" {
		p += ","
	}
	if extra != "" {
		p += extra + ","
	}
	p += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c.caps + `}}`
	msg := `{"jsonrpc":"2.0","id":` + itoa(c.id) + `,"method":"` + method + `","params":` + p + `}`
	reply := c.ss.Handle(ctx, []byte(msg), func(m []byte) { c.t.Errorf("server sent %s", m) })
	return string(reply)
}

func itoa(i int) string { return string(json.RawMessage(marshal(i))) }

// call calls tool with args and extra members.
func (c *modernClient) call(tool, args, extra string) string {
	c.t.Helper()
	return c.send(context.Background(), "tools/call", `"name":"`+tool+`","arguments":`+args, extra)
}

// inputRequired checks reply is an input_required result whose inputRequests
// are want, and returns its requestState.
func (c *modernClient) inputRequired(reply, want string) string {
	c.t.Helper()
	var r struct {
		Result struct {
			ResultType    string          `json:"resultType"`
			InputRequests json.RawMessage `json:"inputRequests"`
			RequestState  string          `json:"requestState"`
			Meta          json.RawMessage `json:"_meta"`
		}
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil || r.Result.ResultType != "input_required" || r.Result.RequestState == "" {
		c.t.Fatalf("reply %s, want an input_required result (%v)", reply, err)
	}
	wantJSON(c.t, string(r.Result.InputRequests), want)
	// The whole result, byte for byte, save the state.
	state, _ := json.Marshal(r.Result.RequestState)
	whole := `{"jsonrpc":"2.0","id":` + itoa(c.id) + `,"result":{"resultType":"input_required","inputRequests":` + string(r.Result.InputRequests) + `,"requestState":` + string(state) + `,` + serverMeta + `}}`
	if reply != whole {
		c.t.Errorf("reply\n%s\nwant\n%s", reply, whole)
	}
	return r.Result.RequestState
}

func stateMember(state string) string { return `"requestState":"` + state + `"` }

func wantComplete(t *testing.T, reply, structured string) {
	t.Helper()
	var r struct {
		Result struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			ResultType        string          `json:"resultType"`
			Meta              json.RawMessage `json:"_meta"`
			IsError           bool            `json:"isError"`
		}
	}
	if err := json.Unmarshal([]byte(reply), &r); err != nil || r.Result.ResultType != "complete" || r.Result.IsError || len(r.Result.Content) != 1 {
		t.Errorf("reply %s, want a complete result (%v)", reply, err)
		return
	}
	wantJSON(t, string(r.Result.StructuredContent), structured)
	wantJSON(t, r.Result.Content[0].Text, structured)
	wantJSON(t, `{`+serverMeta+`}`, `{"_meta":`+string(r.Result.Meta)+`}`)
}

func wantErrorReply(t *testing.T, reply, errObj string) {
	t.Helper()
	wantJSON(t, reply, `{"jsonrpc":"2.0","id":`+jsonID(reply)+`,"error":`+errObj+`}`)
}

func jsonID(reply string) string {
	var r struct{ ID json.RawMessage }
	_ = json.Unmarshal([]byte(reply), &r)
	return string(r.ID)
}

const (
	askRequest = `{"elicitation/create#0":{"method":"elicitation/create","params":{"mode":"form","message":"Name?","requestedSchema":` + nameSchema + `}}}`
	adaAnswer  = `"inputResponses":{"elicitation/create#0":{"action":"accept","content":{"name":"Ada"}}}`
)

func TestModernInputRequiredAndRetry(t *testing.T) {
	c := newModernClient(t, newInputServer(nil, nil))
	state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
	wantComplete(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state)), `{"action":"accept","content":{"name":"Ada"}}`)
	// The state holds for retries until it expires: single use is not
	// promised, as the protocol says.
	wantComplete(t, c.call("ask", `{}`, `"inputResponses":{"elicitation/create#0":{"action":"decline"}},`+stateMember(state)), `{"action":"decline"}`)
}

func TestModernOtherInputs(t *testing.T) {
	c := newModernClient(t, newInputServer(nil, nil))
	state := c.inputRequired(c.call("sample", `{}`, ""),
		`{"sampling/createMessage#0":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":50}}}`)
	wantComplete(t, c.call("sample", `{}`, `"inputResponses":{"sampling/createMessage#0":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}},`+stateMember(state)),
		`{"text":"Paris","model":"m"}`)

	state = c.inputRequired(c.call("roots", `{}`, ""), `{"roots/list#0":{"method":"roots/list","params":{}}}`)
	wantComplete(t, c.call("roots", `{}`, `"inputResponses":{"roots/list#0":{"roots":[{"uri":"file:///a"}]}},`+stateMember(state)),
		`{"roots":[{"uri":"file:///a"}]}`)

	// URL mode has no elicitationId in 2026-07-28.
	c.inputRequired(c.call("ask_url", `{}`, ""),
		`{"elicitation/create#0":{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login"}}}`)
}

func TestModernTamperedState(t *testing.T) {
	c := newModernClient(t, newInputServer(nil, nil))
	state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for name, bad := range map[string]string{
		"first char":  flip(state, 0),
		"middle char": flip(state, len(state)/2),
		"last char":   flip(state, len(state)-1),
		"truncated":   state[:len(state)-4],
		"extended":    state + "AAAA",
		"empty":       "",
		"not base64":  "!!!" + state,
	} {
		t.Run(name, func(t *testing.T) {
			wantErrorReply(t, c.call("ask", `{}`, adaAnswer+","+stateMember(bad)), badState)
		})
	}
	wantErrorReply(t, c.call("ask", `{}`, adaAnswer+`,"requestState":42`),
		`{"code":-32602,"message":"invalid params: \"requestState\" must be a string"}`)
}

func TestModernExpiredState(t *testing.T) {
	srv := newInputServer(nil, &Options{StateTTL: time.Minute})
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	srv.state.now = func() time.Time { return now }
	c := newModernClient(t, srv)
	state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)

	now = now.Add(time.Minute) // the last instant it is valid
	wantComplete(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state)), `{"action":"accept","content":{"name":"Ada"}}`)
	now = now.Add(time.Millisecond)
	wantErrorReply(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state)), badState)
}

func TestModernStateDefaultTTL(t *testing.T) {
	srv := newInputServer(nil, nil)
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	srv.state.now = func() time.Time { return now }
	c := newModernClient(t, srv)
	state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
	now = now.Add(5*time.Minute + time.Millisecond)
	wantErrorReply(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state)), badState)
}

// A state is bound to its request: the method, the tool and its arguments
// (as values: member order and spacing do not matter), and the principal.
func TestModernStateBinding(t *testing.T) {
	srv := newInputServer(nil, nil)
	srv.AddTools(Tool{Name: "ask2", Handler: srv.reg.Load().tool("ask").Handler})
	c := newModernClient(t, srv)
	state := c.inputRequired(c.call("ask", `{"a":1,"b":[true,"x"]}`, ""), askRequest)
	retry := adaAnswer + "," + stateMember(state)

	wantErrorReply(t, c.call("ask2", `{"a":1,"b":[true,"x"]}`, retry), badState)
	wantErrorReply(t, c.call("ask", `{"a":2,"b":[true,"x"]}`, retry), badState)
	wantErrorReply(t, c.call("ask", `{"a":1}`, retry), badState)
	// Another principal.
	wantErrorReply(t, c.send(WithPrincipal(context.Background(), "mallory"), "tools/call", `"name":"ask","arguments":{"a":1,"b":[true,"x"]}`, retry), badState)
	// The same request, written differently.
	wantComplete(t, c.call("ask", `{ "b" : [true, "x"], "a" : 1 }`, retry), `{"action":"accept","content":{"name":"Ada"}}`)

	// State issued to a principal opens for that principal only.
	alice := WithPrincipal(context.Background(), "alice")
	reply := c.send(alice, "tools/call", `"name":"ask","arguments":{}`, "")
	state = c.inputRequired(reply, askRequest)
	retry = adaAnswer + "," + stateMember(state)
	wantErrorReply(t, c.call("ask", `{}`, retry), badState)
	wantErrorReply(t, c.send(WithPrincipal(context.Background(), "bob"), "tools/call", `"name":"ask","arguments":{}`, retry), badState)
	wantComplete(t, c.send(alice, "tools/call", `"name":"ask","arguments":{}`, retry), `{"action":"accept","content":{"name":"Ada"}}`)
}

// A retry that lacks an answer gets the question again, not an error; extra
// answers are ignored. An answer needs no state: a server may ask without
// one (SEP-2322), and a client that answers what the handler asks again is
// taken at its word, once its answer is a valid result of the method asked;
// one that is not counts as missing.
func TestModernMissingInputsReRequested(t *testing.T) {
	c := newModernClient(t, newInputServer(nil, nil))
	state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
	state2 := c.inputRequired(c.call("ask", `{}`, stateMember(state)), askRequest)
	c.inputRequired(c.call("ask", `{}`, `"inputResponses":{"other#3":{"action":"accept"}},`+stateMember(state2)), askRequest)
	c.inputRequired(c.call("ask", `{}`, `"inputResponses":{}`+","+stateMember(state2)), askRequest)
	c.inputRequired(c.call("ask", `{}`, `"inputResponses":null`), askRequest)
	c.inputRequired(c.call("ask", `{}`, `"inputResponses":{"elicitation/create#0":12345}`), askRequest)
	c.inputRequired(c.call("ask", `{}`, `"inputResponses":{"elicitation/create#0":{"action":"maybe"}}`), askRequest)
	wantComplete(t, c.call("ask", `{}`, adaAnswer), `{"action":"accept","content":{"name":"Ada"}}`)
	wantComplete(t, c.call("ask", `{}`, `"inputResponses":{"elicitation/create#0":{"action":"accept","content":{"name":"Ada"}},"extra":{"action":"accept"},"more":7}`), `{"action":"accept","content":{"name":"Ada"}}`)
	wantComplete(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state2)), `{"action":"accept","content":{"name":"Ada"}}`)
}

func TestModernBadInputResponses(t *testing.T) {
	c := newModernClient(t, newInputServer(nil, nil))
	state := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
	for _, tc := range []struct{ responses, msg string }{
		{`[]`, `invalid params: \"inputResponses\" must be an object`},
		{`{"elicitation/create#0":{"action":"maybe"}}`, `invalid params: inputResponses[\"elicitation/create#0\"]: elicitation/create result has action \"maybe\" (want accept, decline or cancel)`},
		{`{"elicitation/create#0":{"roots":[]}}`, `invalid params: inputResponses[\"elicitation/create#0\"]: elicitation/create result has action \"\" (want accept, decline or cancel)`},
		{`{"elicitation/create#0":"accept"}`, `invalid params: inputResponses[\"elicitation/create#0\"]: malformed elicitation/create result`},
		{`{"elicitation/create#0":{"action":"accept","content":[1]}}`, `invalid params: inputResponses[\"elicitation/create#0\"]: elicitation/create result: \"content\" must be an object`},
	} {
		wantErrorReply(t, c.call("ask", `{}`, `"inputResponses":`+tc.responses+","+stateMember(state)), `{"code":-32602,"message":"`+tc.msg+`"}`)
	}
}

// A handler that asks twice in sequence completes over rounds: the state
// carries the first answer while the second is asked.
func TestModernTwoRounds(t *testing.T) {
	c := newModernClient(t, newInputServer(nil, nil))
	first := `{"elicitation/create#0":{"method":"elicitation/create","params":{"mode":"form","message":"First?","requestedSchema":` + nameSchema + `}}}`
	second := `{"elicitation/create#1":{"method":"elicitation/create","params":{"mode":"form","message":"Second?","requestedSchema":` + nameSchema + `}}}`
	state := c.inputRequired(c.call("twice", `{}`, ""), first)
	state = c.inputRequired(c.call("twice", `{}`, `"inputResponses":{"elicitation/create#0":{"action":"accept","content":{"name":"one"}}},`+stateMember(state)), second)
	// The first answer is not sent again; a new one for #0 is not taken.
	state3 := c.inputRequired(c.call("twice", `{}`, `"inputResponses":{"elicitation/create#0":{"action":"accept","content":{"name":"forged"}}},`+stateMember(state)), second)
	wantComplete(t, c.call("twice", `{}`, `"inputResponses":{"elicitation/create#1":{"action":"accept","content":{"name":"two"}}},`+stateMember(state)),
		`{"first":{"name":"one"},"second":{"name":"two"}}`)
	wantComplete(t, c.call("twice", `{}`, `"inputResponses":{"elicitation/create#1":{"action":"accept","content":{"name":"2"}}},`+stateMember(state3)),
		`{"first":{"name":"one"},"second":{"name":"2"}}`)
}

// Keys rotate: the first key seals, every key opens, so a server whose keys
// gained a new one still completes the retries of state sealed by the old.
func TestModernKeyRotation(t *testing.T) {
	oldKey := []byte("0123456789abcdef0123456789abcdef")
	newKey := []byte("fedcba9876543210")
	a := newModernClient(t, newInputServer(nil, &Options{StateKeys: [][]byte{oldKey}}))
	b := newModernClient(t, newInputServer(nil, &Options{StateKeys: [][]byte{newKey, oldKey}}))
	c := newModernClient(t, newInputServer(nil, &Options{StateKeys: [][]byte{newKey}}))
	d := newModernClient(t, newInputServer(nil, nil))

	state := a.inputRequired(a.call("ask", `{}`, ""), askRequest)
	retry := adaAnswer + "," + stateMember(state)
	wantComplete(t, b.call("ask", `{}`, retry), `{"action":"accept","content":{"name":"Ada"}}`)
	wantErrorReply(t, c.call("ask", `{}`, retry), badState)
	wantErrorReply(t, d.call("ask", `{}`, retry), badState)

	// b seals with the new key: a, without it, cannot open that.
	state = b.inputRequired(b.call("ask", `{}`, ""), askRequest)
	retry = adaAnswer + "," + stateMember(state)
	wantComplete(t, c.call("ask", `{}`, retry), `{"action":"accept","content":{"name":"Ada"}}`)
	wantErrorReply(t, a.call("ask", `{}`, retry), badState)
}

func TestModernMissingCapability(t *testing.T) {
	c := newModernClient(t, newInputServer(nil, nil))
	c.caps = `{}`
	wantErrorReply(t, c.call("ask", `{}`, ""), `{"code":-32021,"message":"Server requires the elicitation capability for this request","data":{"requiredCapabilities":{"elicitation":{}}}}`)
	c.caps = `{"elicitation":{}}`
	wantErrorReply(t, c.call("ask_url", `{}`, ""), `{"code":-32021,"message":"Server requires the elicitation capability with url mode for this request","data":{"requiredCapabilities":{"elicitation":{"url":{}}}}}`)
	wantErrorReply(t, c.call("sample", `{}`, ""), `{"code":-32021,"message":"Server requires the sampling capability for this request","data":{"requiredCapabilities":{"sampling":{}}}}`)
	wantErrorReply(t, c.call("roots", `{}`, ""), `{"code":-32021,"message":"Server requires the roots capability for this request","data":{"requiredCapabilities":{"roots":{}}}}`)
}

// Whatever the handler returns after ErrInputRequired, the call asks.
func TestModernHandlerIgnoresErrInputRequired(t *testing.T) {
	srv := New(mcp.Implementation{Name: "asker", Version: "1.0.0"}, nil)
	var got error
	srv.AddTools(Tool{Name: "stubborn", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		_, got = listRoots(ctx)
		return json.RawMessage(`{"ok":true}`), nil
	}})
	c := newModernClient(t, srv)
	c.inputRequired(c.call("stubborn", `{}`, ""), `{"roots/list#0":{"method":"roots/list","params":{}}}`)
	if got != ErrInputRequired {
		t.Errorf("ListRoots returned %v, want ErrInputRequired", got)
	}
	if !strings.Contains(c.call("stubborn", `{}`, `"inputResponses":{"roots/list#0":{"roots":[]}},`+stateMember(mustState(t, c))), `"ok":true`) {
		t.Error("retry did not complete")
	}
}

// mustState runs the stubborn tool's first round again for a fresh state.
func mustState(t *testing.T, c *modernClient) string {
	return c.inputRequired(c.call("stubborn", `{}`, ""), `{"roots/list#0":{"method":"roots/list","params":{}}}`)
}

// prompts/get takes part in the flow too, with state bound to it: a state
// from tools/call with the same name and arguments does not open there.
func TestModernPromptInput(t *testing.T) {
	srv := newInputServer(nil, nil)
	srv.AddPrompts(Prompt{Name: "ask", Handler: func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
		r, err := elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: json.RawMessage(nameSchema)})
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("hello " + string(r.Content))}}}, nil
	}})
	c := newModernClient(t, srv)
	get := func(extra string) string {
		return c.send(context.Background(), "prompts/get", `"name":"ask","arguments":{}`, extra)
	}
	toolState := c.inputRequired(c.call("ask", `{}`, ""), askRequest)
	wantErrorReply(t, get(adaAnswer+","+stateMember(toolState)), badState)

	state := c.inputRequired(get(""), askRequest)
	wantErrorReply(t, c.call("ask", `{}`, adaAnswer+","+stateMember(state)), badState)
	reply := get(adaAnswer + "," + stateMember(state))
	if !strings.Contains(reply, `"text":"hello {\"name\":\"Ada\"}"`) || !strings.Contains(reply, `"resultType":"complete"`) {
		t.Errorf("reply %s", reply)
	}
}

// TestModernWithoutCiphers is a program that does not import package ask
// (askhook has no Crypto): a requestState, even one a server with ciphers
// sealed, fails to open like any invalid one, and asking cannot seal one.
func TestModernWithoutCiphers(t *testing.T) {
	keys := &Options{StateKeys: [][]byte{make([]byte, 32)}}
	sealer := newModernClient(t, newInputServer(nil, keys))
	state := sealer.inputRequired(sealer.call("ask", `{}`, ""), askRequest)

	c := askhook.Installed()
	askhook.Install(nil)
	defer askhook.Install(c)
	mc := newModernClient(t, newInputServer(nil, keys))
	wantErrorReply(t, mc.call("ask", `{}`, adaAnswer+","+stateMember(state)), badState)
	wantErrorReply(t, mc.call("ask", `{}`, adaAnswer+`,"requestState":42`),
		`{"code":-32602,"message":"invalid params: \"requestState\" must be a string"}`)
	if _, err := newStateSealer(nil, 0).seal(&stateBinding{method: "tools/call"}, &stateData{}); err != errNoCrypto {
		t.Errorf("seal without ciphers: %v, want errNoCrypto", err)
	}
}
