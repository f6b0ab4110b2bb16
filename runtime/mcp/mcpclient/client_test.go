package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

type clientSumArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type clientSumResult struct {
	Sum int `json:"sum"`
}

// clientSumTool answers tools/call of "sum" with structured content, "fail" with
// isError and anything else with -32602.
func clientSumTool(modern bool) func(p *clientFakePeer, m clientFakeMsg) {
	return func(p *clientFakePeer, m clientFakeMsg) {
		var params struct {
			Name      string        `json:"name"`
			Arguments clientSumArgs `json:"arguments"`
		}
		json.Unmarshal(m.Params, &params)
		rt := ""
		if modern {
			rt = `"resultType":"complete",`
		}
		switch {
		case m.Method != "tools/call":
			p.fail(m, clientMethodNotFound)
		case params.Name == "sum":
			s, _ := json.Marshal(clientSumResult{params.Arguments.A + params.Arguments.B})
			p.reply(m, `{`+rt+`"content":[{"type":"text","text":`+clientQuote(string(s))+`}],"structuredContent":`+string(s)+`}`)
		case params.Name == "fail":
			p.reply(m, `{`+rt+`"content":[{"type":"text","text":"invalid params: \"a\": expected an integer"}],"isError":true}`)
		default:
			p.fail(m, `{"code":-32602,"message":"unknown tool"}`)
		}
	}
}

func clientQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestClientModern(t *testing.T) {
	peer, f := newClientFakePeer(t, clientModernScript(clientSumTool(true)))
	c := clientConnect(t, f, mcpclient.Options{Info: mcp.Implementation{Name: "tester", Version: "9"}})
	if !c.Modern() || c.ProtocolVersion() != mcp.Version20260728 {
		t.Fatalf("era: modern %v, version %q", c.Modern(), c.ProtocolVersion())
	}
	if c.ServerInfo().Name != "fake" || c.Instructions() != "be nice" || !strings.Contains(string(c.ServerCapabilities()), "tools") {
		t.Errorf("server: %+v %q %s", c.ServerInfo(), c.Instructions(), c.ServerCapabilities())
	}
	var res clientSumResult
	if err := c.CallTool(context.Background(), "sum", clientSumArgs{2, 3}, &res); err != nil || res.Sum != 5 {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
	if got := peer.methods(); !slices.Equal(got, []string{"server/discover", "tools/call"}) {
		t.Errorf("methods: %v", got)
	}
	for _, m := range peer.messages() {
		meta := m.meta(t)
		if string(meta[mcp.MetaProtocolVersion]) != `"2026-07-28"` || string(meta[mcp.MetaClientCapabilities]) != `{}` ||
			string(meta[mcp.MetaClientInfo]) != `{"name":"tester","version":"9"}` {
			t.Errorf("%s _meta: %v", m.Method, meta)
		}
		if _, ok := meta[mcp.MetaLogLevel]; ok {
			t.Errorf("%s carries a log level before SetLogLevel", m.Method)
		}
	}
	if err := c.Ping(context.Background()); err == nil || !strings.Contains(err.Error(), "ping does not exist") {
		t.Errorf("Ping: %v", err)
	}
	if err := c.SetLogLevel(context.Background(), "warning"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLogLevel(context.Background(), "loud"); err == nil {
		t.Error("SetLogLevel accepted an unknown level")
	}
	c.CallTool(context.Background(), "sum", clientSumArgs{1, 1}, nil)
	msgs := peer.messages()
	if last := msgs[len(msgs)-1]; string(last.meta(t)[mcp.MetaLogLevel]) != `"warning"` {
		t.Errorf("after SetLogLevel, _meta %v", last.meta(t))
	}
}

func TestClientModernResultTypes(t *testing.T) {
	_, f := newClientFakePeer(t, clientModernScript(func(p *clientFakePeer, m clientFakeMsg) {
		var params struct{ Name string }
		json.Unmarshal(m.Params, &params)
		switch params.Name {
		case "missing":
			p.reply(m, `{"content":[],"structuredContent":{"sum":7}}`)
		case "input":
			p.reply(m, `{"resultType":"input_required","requestState":"x"}`)
		default:
			p.reply(m, `{"resultType":"task","task":{}}`)
		}
	}))
	c := clientConnect(t, f, mcpclient.Options{ProtocolVersion: mcp.Version20260728})
	var res clientSumResult
	if err := c.CallTool(context.Background(), "missing", nil, &res); err != nil || res.Sum != 7 {
		t.Errorf("missing resultType: %+v, %v", res, err)
	}
	if err := c.CallTool(context.Background(), "input", nil, &res); err == nil || !strings.Contains(err.Error(), "input_required") {
		t.Errorf("input_required: %v", err)
	}
	if _, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "input"}); err == nil {
		t.Error("CallToolRaw accepted input_required")
	}
	if err := c.CallTool(context.Background(), "task", nil, nil); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("task: %v", err)
	}
	// A resultType the client does not know fails every method alike.
	if _, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "task"}); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("CallToolRaw task: %v", err)
	}
	if _, err := c.ReadResource(context.Background(), "test://x"); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("ReadResource task: %v", err)
	}
	if _, err := c.GetPrompt(context.Background(), "task", nil); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("GetPrompt task: %v", err)
	}
}

func TestClientLegacyFallback(t *testing.T) {
	for _, tc := range []struct {
		name  string
		probe func(p *clientFakePeer, m clientFakeMsg) // how the server answers server/discover
	}{
		{"method-not-found", func(p *clientFakePeer, m clientFakeMsg) { p.fail(m, clientMethodNotFound) }},
		{"invalid-request", func(p *clientFakePeer, m clientFakeMsg) { p.fail(m, `{"code":-32600,"message":"not initialized"}`) }},
		{"unknown-version-code-without-data", func(p *clientFakePeer, m clientFakeMsg) { p.fail(m, `{"code":-32022,"message":"?"}`) }},
		{"timeout", func(p *clientFakePeer, m clientFakeMsg) {}},
		{"empty-result", func(p *clientFakePeer, m clientFakeMsg) { p.reply(m, `{}`) }},
		{"modern-error-naming-legacy", func(p *clientFakePeer, m clientFakeMsg) {
			p.fail(m, `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			legacy := clientLegacyScript(mcp.Version20251125, clientSumTool(false))
			peer, f := newClientFakePeer(t, func(p *clientFakePeer, m clientFakeMsg) {
				if m.Method == "server/discover" {
					tc.probe(p, m)
					return
				}
				legacy(p, m)
			})
			// Only the silent server needs the probe to time out; a server
			// that answers gets a minute, so that a loaded machine's late
			// answer is never taken for silence.
			probe := time.Minute
			if tc.name == "timeout" {
				probe = 50 * time.Millisecond
			}
			c := clientConnect(t, f, mcpclient.Options{ProbeTimeout: probe})
			if c.Modern() || c.ProtocolVersion() != mcp.Version20251125 || c.ServerInfo().Name != "old" || c.Instructions() != "hi" {
				t.Fatalf("got modern %v, version %q, server %+v", c.Modern(), c.ProtocolVersion(), c.ServerInfo())
			}
			var res clientSumResult
			if err := c.CallTool(context.Background(), "sum", map[string]int{"a": 4, "b": 5}, &res); err != nil || res.Sum != 9 {
				t.Fatalf("CallTool: %+v, %v", res, err)
			}
			if err := c.Ping(context.Background()); err != nil {
				t.Errorf("Ping: %v", err)
			}
			want := []string{"server/discover", "initialize", "notifications/initialized", "tools/call", "ping"}
			if tc.name == "timeout" {
				// Silence alone is not a legacy server: the client pings,
				// and the server answers the ping but not the probe.
				want = slices.Insert(want, 1, "ping")
			}
			if got := peer.methods(); !slices.Equal(got, want) {
				t.Errorf("methods: %v, want %v", got, want)
			}
			init := peer.waitFor("initialize")
			var p struct {
				ProtocolVersion string
				Capabilities    json.RawMessage
				ClientInfo      mcp.Implementation
			}
			json.Unmarshal(init.Params, &p)
			if p.ProtocolVersion != mcp.Version20251125 || string(p.Capabilities) != "{}" || p.ClientInfo.Name == "" {
				t.Errorf("initialize params: %s", init.Params)
			}
			msgs := peer.messages()
			for len(msgs) > 0 && msgs[0].Method != "initialize" { // the probe
				msgs = msgs[1:]
			}
			for _, m := range msgs {
				if meta := m.meta(t); meta[mcp.MetaProtocolVersion] != nil {
					t.Errorf("legacy %s carries modern _meta: %s", m.Method, m.raw)
				}
			}
		})
	}
}

func TestClientModernErrors(t *testing.T) {
	// A recognized modern error is not a reason to fall back.
	peer, f := newClientFakePeer(t, func(p *clientFakePeer, m clientFakeMsg) {
		if m.ID != nil {
			p.fail(m, `{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{}}}}`)
		}
	})
	_, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{})
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMissingClientCapability {
		t.Errorf("Connect: %v", err)
	}
	if got := peer.methods(); !slices.Equal(got, []string{"server/discover"}) {
		t.Errorf("methods: %v", got)
	}

	// Modern only: no fallback.
	peer, f = newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, nil))
	if _, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{ProtocolVersion: mcp.Version20260728}); err == nil {
		t.Error("modern-only Connect to a legacy server succeeded")
	}
	if got := peer.methods(); !slices.Equal(got, []string{"server/discover"}) {
		t.Errorf("methods: %v", got)
	}

	// A server that only speaks a future modern revision.
	_, f = newClientFakePeer(t, func(p *clientFakePeer, m clientFakeMsg) {
		p.fail(m, `{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2027-01-01"],"requested":"2026-07-28"}}`)
	})
	if _, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{}); err == nil || !strings.Contains(err.Error(), "2027-01-01") {
		t.Errorf("Connect: %v", err)
	}
}

func TestClientModernOnlyServerMissesProbe(t *testing.T) {
	// The server is slow: it ignores the first server/discover, then refuses
	// initialize naming its versions; the client turns modern.
	var once sync.Once
	peer, f := newClientFakePeer(t, func(p *clientFakePeer, m clientFakeMsg) {
		if m.Method == "server/discover" {
			skip := false
			once.Do(func() { skip = true })
			if skip {
				return
			}
		}
		clientModernScript(nil)(p, m)
	})
	c := clientConnect(t, f, mcpclient.Options{ProbeTimeout: 30 * time.Millisecond})
	if !c.Modern() || c.ServerInfo().Name != "fake" {
		t.Errorf("modern %v, server %+v", c.Modern(), c.ServerInfo())
	}
	// It answers the client's ping (method not found), so it reads: the
	// client tries initialize, which names the server's versions.
	if got := peer.methods(); !slices.Equal(got, []string{"server/discover", "ping", "initialize", "server/discover"}) {
		t.Errorf("methods: %v", got)
	}
}

func TestClientExplicitLegacyVersion(t *testing.T) {
	peer, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20250326, nil))
	c := clientConnect(t, f, mcpclient.Options{ProtocolVersion: mcp.Version20250326})
	peer.waitFor("notifications/initialized")
	if c.ProtocolVersion() != mcp.Version20250326 || c.Modern() {
		t.Errorf("version %q", c.ProtocolVersion())
	}
	if got := peer.methods(); !slices.Equal(got, []string{"initialize", "notifications/initialized"}) {
		t.Errorf("methods: %v", got)
	}
	if !strings.Contains(string(peer.waitFor("initialize").Params), `"protocolVersion":"2025-03-26"`) {
		t.Errorf("initialize: %s", peer.waitFor("initialize").Params)
	}
	if err := c.SetLogLevel(context.Background(), "debug"); err != nil {
		t.Fatal(err)
	}
	if m := peer.waitFor("logging/setLevel"); string(m.Params) != `{"level":"debug"}` {
		t.Errorf("logging/setLevel params %s", m.Params)
	}

	// A server that picks a version the client does not know.
	_, f = newClientFakePeer(t, clientLegacyScript("2023-01-01", nil))
	if _, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{ProtocolVersion: mcp.Version20250326}); err == nil {
		t.Error("Connect accepted an unknown negotiated version")
	}
	if _, err := mcpclient.Connect(context.Background(), f, mcpclient.Options{ProtocolVersion: "1999-01-01"}); err == nil {
		t.Error("Connect accepted an unknown ProtocolVersion")
	}
}

func TestClientOldServerTextFallback(t *testing.T) {
	_, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20241105, func(p *clientFakePeer, m clientFakeMsg) {
		p.reply(m, `{"content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"{\"sum\":42}"}]}`)
	}))
	c := clientConnect(t, f, mcpclient.Options{})
	if c.ProtocolVersion() != mcp.Version20241105 {
		t.Fatalf("version %q", c.ProtocolVersion())
	}
	var res clientSumResult
	if err := c.CallTool(context.Background(), "sum", nil, &res); err != nil || res.Sum != 42 {
		t.Errorf("CallTool: %+v, %v", res, err)
	}

	// From 2025-06-18 on, a missing structured result is an error.
	_, f = newClientFakePeer(t, clientLegacyScript(mcp.Version20250618, func(p *clientFakePeer, m clientFakeMsg) {
		p.reply(m, `{"content":[{"type":"text","text":"{\"sum\":42}"}]}`)
	}))
	c = clientConnect(t, f, mcpclient.Options{})
	if err := c.CallTool(context.Background(), "sum", nil, &res); err == nil {
		t.Error("CallTool decoded text content on a 2025-06-18 session")
	}
	if err := c.CallTool(context.Background(), "sum", nil, nil); err != nil {
		t.Errorf("CallTool with a nil result: %v", err)
	}
}

func TestClientToolErrors(t *testing.T) {
	for _, modern := range []bool{false, true} {
		script := clientLegacyScript(mcp.Version20251125, clientSumTool(false))
		if modern {
			script = clientModernScript(clientSumTool(true))
		}
		_, f := newClientFakePeer(t, script)
		c := clientConnect(t, f, mcpclient.Options{})
		err := c.CallTool(context.Background(), "fail", clientSumArgs{}, &clientSumResult{})
		var te *mcp.ToolError
		if !errors.As(err, &te) || te.Error() != `invalid params: "a": expected an integer` || !te.Result.IsError {
			t.Errorf("modern %v: isError: %#v", modern, err)
		}
		var rpcErr *runtime.Error
		if err := c.CallTool(context.Background(), "nope", nil, nil); !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams {
			t.Errorf("modern %v: unknown tool: %v", modern, err)
		}
		res, err := c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "fail", Arguments: json.RawMessage(`{"a":1}`)})
		if err != nil || !res.IsError || len(res.Content) != 1 {
			t.Errorf("modern %v: CallToolRaw: %+v, %v", modern, res, err)
		}
		for _, args := range []any{[]int{1}, json.RawMessage(`"x"`), json.RawMessage(`{"a":`), 7} {
			if err := c.CallTool(context.Background(), "sum", args, nil); err == nil {
				t.Errorf("arguments %v accepted", args)
			}
		}
		res, err = c.CallToolRaw(context.Background(), mcp.CallToolParams{Name: "sum", Arguments: map[string]int{"a": 1, "b": 2}})
		if err != nil || string(res.StructuredContent) != `{"sum":3}` || res.Content[0].Text != `{"sum":3}` {
			t.Errorf("modern %v: CallToolRaw sum: %+v, %v", modern, res, err)
		}
	}
}

func TestClientListToolsPages(t *testing.T) {
	for _, modern := range []bool{false, true} {
		tools := func(p *clientFakePeer, m clientFakeMsg) {
			var params struct{ Cursor *string }
			json.Unmarshal(m.Params, &params)
			switch {
			case params.Cursor == nil:
				p.reply(m, `{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}],"nextCursor":"p2"}`)
			case *params.Cursor == "p2":
				p.reply(m, `{"tools":[{"name":"b","title":"B","description":"bee","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}],"nextCursor":"p3"}`)
			case *params.Cursor == "p3":
				p.reply(m, `{"tools":[],"ttlMs":0,"cacheScope":"public"}`)
			default:
				p.fail(m, `{"code":-32602,"message":"invalid cursor"}`)
			}
		}
		script := clientLegacyScript(mcp.Version20251125, tools)
		if modern {
			script = clientModernScript(tools)
		}
		_, f := newClientFakePeer(t, script)
		c := clientConnect(t, f, mcpclient.Options{})
		got, err := c.ListTools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := []mcp.ToolInfo{
			{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}},
			{Name: "b", Title: "B", Description: "bee", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object"}`)},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("modern %v: ListTools = %+v", modern, got)
		}
	}

	// A server that loops its cursors.
	_, f := newClientFakePeer(t, clientLegacyScript(mcp.Version20251125, func(p *clientFakePeer, m clientFakeMsg) {
		p.reply(m, `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"again"}`)
	}))
	c := clientConnect(t, f, mcpclient.Options{})
	if _, err := c.ListTools(context.Background()); err == nil || !strings.Contains(err.Error(), "repeated cursor") {
		t.Errorf("looping cursor: %v", err)
	}
}
