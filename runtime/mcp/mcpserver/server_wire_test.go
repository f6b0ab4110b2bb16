package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
)

// The expected messages below are written out by hand, byte for byte: the
// engine pre-encodes its results, so their exact text is part of its contract.

const (
	capsJSON  = `"capabilities":{"tools":{"listChanged":true},"logging":{}}`
	errBatch  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"batches are not supported"}}`
	searchOut = `{"notes":[{"id":1,"title":"Groceries \"weekly\""}],"total":1}`
	searchTxt = `"{\"notes\":[{\"id\":1,\"title\":\"Groceries \\\"weekly\\\"\"}],\"total\":1}"`
	cursor2   = `dG9vbHMvbGlzdDoy` // base64url of "tools/list:2"
	cursor4   = `dG9vbHMvbGlzdDo0`
	levelsMsg = `(valid levels: debug, info, notice, warning, error, critical, alert, emergency)`
	needsErr  = `"error":{"code":-32021,"message":"Server requires the elicitation capability for this request","data":{"requiredCapabilities":{"elicitation":{}}}}}`
	fullInfo  = `{"name":"notes","title":"Notes","version":"1.0.0","description":"A notes store","websiteUrl":"https://example.com/notes"}`
)

// legacyRev is one legacy revision and the fields it has.
type legacyRev struct {
	version     string
	annotations bool   // tool annotations, progress message (2025-03-26+)
	structured  bool   // title, outputSchema, structuredContent (2025-06-18+)
	batches     bool   // 2025-03-26 only
	info        string // serverInfo as the revision knows it
}

var legacyRevs = []legacyRev{
	{version: "2024-11-05", info: `{"name":"notes","version":"1.0.0"}`},
	{version: "2025-03-26", annotations: true, batches: true, info: `{"name":"notes","version":"1.0.0"}`},
	{version: "2025-06-18", annotations: true, structured: true, info: `{"name":"notes","title":"Notes","version":"1.0.0"}`},
	{version: "2025-11-25", annotations: true, structured: true, info: fullInfo},
}

// tools returns the descriptors of the fixture's tools as revision r lists them.
func (r legacyRev) tools() []string {
	search := `{"name":"search",`
	if r.structured {
		search += `"title":"Search notes",`
	}
	search += `"description":"Find notes.","inputSchema":` + searchSchema
	if r.structured {
		search += `,"outputSchema":{"type":"object"}`
	}
	switch {
	case r.structured:
		search += `,"annotations":{"readOnlyHint":true}`
	case r.annotations: // 2025-03-26: the title only in annotations
		search += `,"annotations":{"title":"Search notes","readOnlyHint":true}`
	}
	search += `}`
	out := []string{search}
	for _, name := range []string{"slow", "block", "panic", "needs", "nothing"} {
		out = append(out, `{"name":"`+name+`","inputSchema":{"type":"object"}}`)
	}
	return out
}

// result is the CallToolResult of a tool that returned the object out.
func (r legacyRev) result(out, text string) string {
	if r.structured {
		return `{"content":[{"type":"text","text":` + text + `}],"structuredContent":` + out + `}`
	}
	return `{"content":[{"type":"text","text":` + text + `}]}`
}

func res(id, result string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
}

func errRes(id string, code, msg string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + code + `,"message":` + msg + `}}`
}

func note(method, params string) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`
}

func call(id, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
}

func TestLegacySessionWire(t *testing.T) {
	for _, r := range legacyRevs {
		for _, dr := range drivers {
			t.Run(r.version+"/"+dr.name, func(t *testing.T) {
				rpctest.CheckLeaks(t)
				fx := newFixture(t)
				d := dr.new(t, fx.srv)
				legacySession(t, fx, d, r)
				d.finish(t)
			})
		}
	}
}

func legacySession(t *testing.T, fx *fixture, d driver, r legacyRev) {
	// Before initialize: only ping, and no batches.
	expect(t, d, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		errRes("1", "-32600", `"session not initialized: send initialize first"`))
	expect(t, d, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, res("2", `{}`))
	expect(t, d, `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, errBatch)

	expect(t, d, `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"`+r.version+`","capabilities":{"roots":{}},"clientInfo":{"name":"test","version":"0"}}}`,
		res("4", `{"protocolVersion":"`+r.version+`",`+capsJSON+`,"serverInfo":`+r.info+`,"instructions":"Use search first."}`))
	expect(t, d, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	expect(t, d, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, res("5", `{}`))

	// tools/list, three pages of two.
	tools := r.tools()
	expect(t, d, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`,
		res("6", `{"tools":[`+tools[0]+`,`+tools[1]+`],"nextCursor":"`+cursor2+`"}`))
	expect(t, d, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"`+cursor2+`"}}`,
		res("7", `{"tools":[`+tools[2]+`,`+tools[3]+`],"nextCursor":"`+cursor4+`"}`))
	expect(t, d, `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"`+cursor4+`"}}`,
		res("8", `{"tools":[`+tools[4]+`,`+tools[5]+`]}`))
	expect(t, d, `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"bogus"}}`,
		errRes("9", "-32602", `"invalid params: invalid cursor"`))

	// tools/call: a result, a validation error, an unknown tool, bad arguments.
	expect(t, d, call("10", `{"name":"search","arguments":{"query":"x","limit":3}}`), res("10", r.result(searchOut, searchTxt)))
	expect(t, d, call("11", `{"name":"search","arguments":{"query":"x","limit":"ten"}}`),
		res("11", `{"content":[{"type":"text","text":"invalid params: \"limit\": expected an integer, got \"ten\""}],"isError":true,`+
			`"_meta":{"io.github.rpcgen/error":{"code":-32602,"message":"invalid params: \"limit\": expected an integer, got \"ten\""}}}`))
	expect(t, d, call("12", `{"name":"nope","arguments":{}}`), errRes("12", "-32602", `"invalid params: unknown tool \"nope\""`))
	expect(t, d, call("13", `{"name":"search","arguments":[1]}`), errRes("13", "-32602", `"invalid params: \"arguments\" must be an object"`))

	// Logging and progress.
	expect(t, d, `{"jsonrpc":"2.0","id":14,"method":"logging/setLevel","params":{"level":"loud"}}`,
		errRes("14", "-32602", `"invalid params: invalid log level \"loud\" `+levelsMsg+`"`))
	expect(t, d, `{"jsonrpc":"2.0","id":15,"method":"logging/setLevel","params":{"level":"info"}}`, res("15", `{}`))
	message := ""
	if r.annotations {
		message = `,"message":"one"`
	}
	expect(t, d, call("16", `{"name":"slow","_meta":{"progressToken":"p1"}}`),
		note("notifications/progress", `{"progressToken":"p1","progress":1,"total":3`+message+`}`),
		note("notifications/message", `{"level":"info","logger":"slow","data":{"step":2}}`),
		note("notifications/progress", `{"progressToken":"p1","progress":2.5}`),
		note("notifications/message", `{"level":"error","data":"bad"}`),
		res("16", r.result(`{"done":true}`, `"{\"done\":true}"`)))

	// A panic, no result, a missing capability, a second initialize.
	expect(t, d, call("17", `{"name":"panic"}`), res("17", `{"content":[{"type":"text","text":"internal error in tool panic"}],"isError":true,`+
		`"_meta":{"io.github.rpcgen/error":{"code":-32603,"message":"internal error in tool panic"}}}`))
	if !strings.Contains(fx.logs.String(), "boom") {
		t.Errorf("the panic was not logged: %q", fx.logs.String())
	}
	expect(t, d, call("18", `{"name":"nothing"}`), res("18", `{"content":[]}`))
	expect(t, d, call("19", `{"name":"needs"}`), `{"jsonrpc":"2.0","id":19,`+needsErr)
	expect(t, d, `{"jsonrpc":"2.0","id":20,"method":"initialize","params":{"protocolVersion":"`+r.version+`","capabilities":{}}}`,
		errRes("20", "-32600", `"session already initialized"`))

	// A batch: served at 2025-03-26 only.
	batch := `[{"jsonrpc":"2.0","id":21,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` + call("22", `{"name":"nothing"}`) + `]`
	if r.batches {
		expect(t, d, batch, `[`+res("21", `{}`)+`,`+res("22", `{"content":[]}`)+`]`)
	} else {
		expect(t, d, batch, errBatch)
	}

	cancelled(t, fx, d, call("23", `{"name":"block","_meta":{"progressToken":23}}`), "23", r.annotations)
	expect(t, d, `{"jsonrpc":"2.0","id":24,"method":"ping"}`, res("24", `{}`))
}

// cancelled starts the block tool with request id, cancels it once it runs,
// and waits until it has returned: no response and no progress or log after
// the cancellation may follow (finish checks).
func cancelled(t *testing.T, fx *fixture, d driver, req, id string, message bool) {
	t.Helper()
	msg := ""
	if message {
		msg = `,"message":"started"`
	}
	want := note("notifications/progress", `{"progressToken":`+id+`,"progress":1`+msg+`}`)
	if got := d.start(t, req, 1); len(got) != 1 || got[0] != want {
		t.Errorf("block: got %q, want %s", got, want)
	}
	<-fx.started
	d.post(t, note("notifications/cancelled", `{"requestId":`+id+`,"reason":"user cancelled"}`))
	<-fx.finished
}

const (
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	modernTail = `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + fullInfo + `}}`
	cacheJSON  = `,"ttlMs":90000,"cacheScope":"public"`
)

// modernReq is a 2026-07-28 request whose params are extra plus _meta.
func modernReq(id, method, extra string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + extra + modernMeta + `}}`
}

func TestModernWire(t *testing.T) {
	tools := legacyRevs[3].tools() // 2026-07-28 lists what 2025-11-25 does
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			rpctest.CheckLeaks(t)
			fx := newFixture(t)
			d := dr.new(t, fx.srv)

			expect(t, d, modernReq("1", "server/discover", ""),
				res("1", `{"supportedVersions":["2026-07-28"],`+capsJSON+`,"instructions":"Use search first."`+cacheJSON+modernTail))
			expect(t, d, modernReq("2", "tools/list", ""),
				res("2", `{"tools":[`+tools[0]+`,`+tools[1]+`],"nextCursor":"`+cursor2+`"`+cacheJSON+modernTail))
			expect(t, d, modernReq("3", "tools/list", `"cursor":"`+cursor4+`",`),
				res("3", `{"tools":[`+tools[4]+`,`+tools[5]+`]`+cacheJSON+modernTail))
			expect(t, d, modernReq("4", "tools/call", `"name":"search","arguments":{"query":"x","limit":3},`),
				res("4", `{"content":[{"type":"text","text":`+searchTxt+`}],"structuredContent":`+searchOut+modernTail))

			// Logging only with the request's logLevel, at or above it.
			withLevel := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"warning"}}}`
			slowResult := `{"content":[{"type":"text","text":"{\"done\":true}"}],"structuredContent":{"done":true}` + modernTail
			expect(t, d, withLevel,
				note("notifications/progress", `{"progressToken":7,"progress":1,"total":3,"message":"one"}`),
				note("notifications/progress", `{"progressToken":7,"progress":2.5}`),
				note("notifications/message", `{"level":"error","data":"bad"}`),
				res("5", slowResult))
			expect(t, d, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
				note("notifications/progress", `{"progressToken":"t","progress":1,"total":3,"message":"one"}`),
				note("notifications/progress", `{"progressToken":"t","progress":2.5}`),
				res("6", slowResult))

			// Every error code.
			expect(t, d, `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
				errRes("7", "-32602", `"invalid params: missing _meta key \"io.modelcontextprotocol/clientCapabilities\""`))
			expect(t, d, `{"jsonrpc":"2.0","id":8,"method":"server/discover"}`,
				errRes("8", "-32602", `"invalid params: missing _meta key \"io.modelcontextprotocol/protocolVersion\""`))
			expect(t, d, `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
				`{"jsonrpc":"2.0","id":9,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2030-01-01"}}}`)
			expect(t, d, modernReq("10", "tools/call", `"name":"needs",`), `{"jsonrpc":"2.0","id":10,`+needsErr)
			expect(t, d, `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"needs","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`,
				res("11", `{"content":[{"type":"text","text":"{\"ok\":true}"}],"structuredContent":{"ok":true}`+modernTail))
			for i, method := range []string{"ping", "logging/setLevel", "initialize"} {
				id := string(rune('a' + i))
				expect(t, d, modernReq(`"`+id+`"`, method, ""),
					`{"jsonrpc":"2.0","id":"`+id+`","error":{"code":-32601,"message":"Method not found","data":"`+method+`"}}`)
			}
			expect(t, d, modernReq("15", "tools/list", `"cursor":"bogus",`), errRes("15", "-32602", `"invalid params: invalid cursor"`))
			expect(t, d, `{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}`,
				errRes("16", "-32602", `"invalid params: invalid log level \"loud\" `+levelsMsg+`"`))
			expect(t, d, modernReq("17", "tools/call", `"name":"nope",`), errRes("17", "-32602", `"invalid params: unknown tool \"nope\""`))

			cancelled(t, fx, d, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"block","_meta":{"progressToken":"c","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, `"c"`, true)

			// Modern requests leave the session uninitialized.
			expect(t, d, `{"jsonrpc":"2.0","id":18,"method":"tools/list"}`,
				errRes("18", "-32600", `"session not initialized: send initialize first"`))
			d.finish(t)
		})
	}
}

func TestInitializeNegotiation(t *testing.T) {
	for _, tc := range []struct{ asked, got string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-03-26", "2025-03-26"},
		{"2025-06-18", "2025-06-18"},
		{"2025-11-25", "2025-11-25"},
		{"2026-07-28", "2025-11-25"},
		{"2099-01-01", "2025-11-25"},
		{"", "2025-11-25"},
	} {
		ss := newFixture(t).srv.NewSession()
		reply := ss.Handle(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+tc.asked+`","capabilities":{}}}`), nil)
		if want := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"` + tc.got + `",`; !strings.HasPrefix(string(reply), want) {
			t.Errorf("asked %q: got %s, want %s...", tc.asked, reply, want)
		}
	}
}
