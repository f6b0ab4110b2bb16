package mcphttp

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// modernReq is a 2026-07-28 request; params are members to put beside _meta.
func modernReq(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s}}`, id, method, params, modernMeta)
}

func modernCall(id int, name, args string) string {
	return modernReq(id, "tools/call", fmt.Sprintf(`"name":%q,"arguments":%s`, name, args))
}

// modernHeaders are the headers a 2026-07-28 client sends with a request.
func modernHeaders(method, name string, more ...string) []string {
	kv := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		kv = append(kv, "Mcp-Name", name)
	}
	return append(kv, more...)
}

func TestModernJSON(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	r := hn.post(modernCall(1, "add", `{"a":1,"b":2}`), modernHeaders("tools/call", "add")...)
	if r.status != 200 || !strings.Contains(r.body, `"structuredContent":{"sum":3}`) {
		t.Fatalf("tools/call: %d %s", r.status, r.body)
	}
	if r.header.Get("Mcp-Session-Id") != "" {
		t.Error("a 2026-07-28 response carries Mcp-Session-Id")
	}
	// A session id is ignored, neither minted nor echoed.
	r = hn.post(modernCall(2, "add", `{"a":1,"b":2}`), modernHeaders("tools/call", "add", "Mcp-Session-Id", "stale")...)
	if r.status != 200 || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("with a stale session id: %d %v %s", r.status, r.header, r.body)
	}
	r = hn.post(modernReq(3, "server/discover", ""), modernHeaders("server/discover", "")...)
	if r.status != 200 || !strings.Contains(r.body, `"result"`) {
		t.Fatalf("server/discover: %d %s", r.status, r.body)
	}
	// A notification is accepted, with no body.
	r = hn.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,`+modernMeta+`}}`, modernHeaders("notifications/cancelled", "")...)
	if r.status != http.StatusAccepted || r.body != "" {
		t.Fatalf("notification: %d %q", r.status, r.body)
	}
	if n := hn.h.SessionCount(); n != 0 {
		t.Errorf("SessionCount %d", n)
	}
}

func TestModernErrors(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	add := modernCall(1, "add", `{"a":1,"b":2}`)
	noCaps := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	noVersion := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`
	future := strings.ReplaceAll(add, "2026-07-28", "2099-01-01")
	for _, tc := range []struct {
		name         string
		body         string
		kv           []string
		status, code int
	}{
		{"no protocol version header", add, []string{"Mcp-Method", "tools/call", "Mcp-Name", "add"}, 400, mcp.CodeHeaderMismatch},
		{"protocol version mismatch", add, modernHeaders("tools/call", "add", "MCP-Protocol-Version", "2025-11-25"), 400, mcp.CodeHeaderMismatch},
		{"no Mcp-Method", add, []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Name", "add"}, 400, mcp.CodeHeaderMismatch},
		{"Mcp-Method mismatch", add, modernHeaders("tools/list", "add"), 400, mcp.CodeHeaderMismatch},
		{"no Mcp-Name", add, modernHeaders("tools/call", ""), 400, mcp.CodeHeaderMismatch},
		{"Mcp-Name mismatch", add, modernHeaders("tools/call", "sub"), 400, mcp.CodeHeaderMismatch},
		{"Mcp-Name bad base64", add, modernHeaders("tools/call", "=?base64?!!!?="), 400, mcp.CodeHeaderMismatch},
		{"Mcp-Name base64 of another name", add, modernHeaders("tools/call", "=?base64?c3Vi?="), 400, mcp.CodeHeaderMismatch},
		{"no _meta version", noVersion, modernHeaders("tools/call", "add"), 400, -32602},
		{"no client capabilities", noCaps, modernHeaders("tools/call", "add"), 400, -32602},
		{"unsupported version", future, modernHeaders("tools/call", "add", "MCP-Protocol-Version", "2099-01-01"), 400, mcp.CodeUnsupportedProtocolVersion},
		{"unknown method", modernReq(1, "resources/list", ""), modernHeaders("resources/list", ""), 404, -32601},
		// The methods 2026-07-28 removed are unknown methods too, initialize
		// included: it is not the legacy handshake when it says 2026-07-28.
		{"removed initialize", modernReq(1, "initialize", ""), modernHeaders("initialize", ""), 404, -32601},
		{"removed initialize with legacy params", modernReq(1, "initialize", `"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"c","version":"1"}`), modernHeaders("initialize", ""), 404, -32601},
		{"removed ping", modernReq(1, "ping", ""), modernHeaders("ping", ""), 404, -32601},
		{"removed logging/setLevel", modernReq(1, "logging/setLevel", `"level":"info"`), modernHeaders("logging/setLevel", ""), 404, -32601},
		{"removed resources/subscribe", modernReq(1, "resources/subscribe", `"uri":"x:y"`), modernHeaders("resources/subscribe", ""), 404, -32601},
		{"initialize declaring 2026-07-28 without _meta", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, modernHeaders("initialize", ""), 400, -32602},
		{"missing capability", modernCall(1, "needs", `{}`), modernHeaders("tools/call", "needs"), 400, mcp.CodeMissingClientCapability},
		{"unknown tool", modernCall(1, "nope", `{}`), modernHeaders("tools/call", "nope"), 200, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, hn.post(tc.body, tc.kv...), tc.status, tc.code, "1")
		})
	}
	// The base64 form of the right name is the right name.
	r := hn.post(add, modernHeaders("tools/call", "=?base64?YWRk?=")...)
	if r.status != 200 || !strings.Contains(r.body, `"sum":3`) {
		t.Fatalf("base64 Mcp-Name: %d %s", r.status, r.body)
	}
}

func TestModernParamHeaders(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	full := `{"region":"us-west1","count":42,"flag":true,"where":{"zone":"z1"},"query":"q"}`
	hdrs := []string{"Mcp-Param-Region", "us-west1", "Mcp-Param-Count", "42", "Mcp-Param-Flag", "true", "Mcp-Param-Zone", "z1"}
	ok := func(args string, kv ...string) {
		t.Helper()
		r := hn.post(modernCall(1, "region", args), modernHeaders("tools/call", "region", kv...)...)
		if r.status != 200 || strings.Contains(r.body, `"error"`) || strings.Contains(r.body, `"isError"`) {
			t.Fatalf("%s %v: %d %s", args, kv, r.status, r.body)
		}
	}
	bad := func(args string, kv ...string) {
		t.Helper()
		wantError(t, hn.post(modernCall(1, "region", args), modernHeaders("tools/call", "region", kv...)...), 400, mcp.CodeHeaderMismatch, "1")
	}
	ok(full, hdrs...)
	// Header names are case-insensitive; integers compare as numbers.
	ok(full, "mcp-param-region", "us-west1", "MCP-PARAM-COUNT", "42.0", "Mcp-Param-Flag", "true", "Mcp-Param-Zone", "z1")
	ok(`{"region":"Hello, 世界"}`, "Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?=")
	ok(`{"region":" padded "}`, "Mcp-Param-Region", "=?base64?IHBhZGRlZCA=?=")
	ok(`{"region":"=?base64?literal?="}`, "Mcp-Param-Region", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
	// Absent or null values need no header; unannotated paths are ignored.
	ok(`{"query":"q","region":null}`)
	ok(`{}`, "Mcp-Param-Bad", "anything")
	ok(`{"list":[{"x":"y"}]}`)

	bad(full, hdrs[2:]...)                                                      // no Mcp-Param-Region
	bad(full, append([]string{"Mcp-Param-Region", "us-east1"}, hdrs[2:]...)...) // wrong region
	bad(full, append(append([]string{}, hdrs[:2]...), "Mcp-Param-Count", "43", "Mcp-Param-Flag", "true", "Mcp-Param-Zone", "z1")...)
	bad(full, append(append([]string{}, hdrs[:4]...), "Mcp-Param-Flag", "TRUE", "Mcp-Param-Zone", "z1")...)
	bad(full, hdrs[:6]...)                                         // no Mcp-Param-Zone for where.zone
	bad(`{"region":null}`, "Mcp-Param-Region", "us-west1")         // a header for no value
	bad(`{"region":"Hello, 世界"}`, "Mcp-Param-Region", "Hello, 世界") // not encoded
	bad(`{"region":"x"}`, "Mcp-Param-Region", "=?base64?***?=")    // malformed base64
}

func TestDecodeHeaderValue(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"us-west1", "us-west1", true},
		{"a b\tc", "a b\tc", true},
		{"=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界", true},
		{"=?base64?SGVsbG8sIOS4lueVjA?=", "", false}, // unpadded: SEP-2243's cases refuse it
		{"=?base64?SGVsbG8?=", "", false},            // the conformance suite's case
		{"=?base64?SGVs!!!bG8=?=", "", false},        // not the alphabet
		{"=?base64?SGVsbG9=?=", "", false},           // stray bits in the last character
		{"=?base64?SGVs\nbG8=?=", "", false},         // a line break
		{"=?base64?bGluZTEKbGluZTI=?=", "line1\nline2", true},
		{"=?BASE64?YWRk?=", "=?BASE64?YWRk?=", true}, // the markers are case-sensitive
		{"=?base64?/w==?=", "", false},               // not UTF-8
		{"=?base64?***?=", "", false},
		{"caf\xc3\xa9", "", false},
		{"a\x00b", "", false},
		{"a\x7fb", "", false},
	} {
		got, ok := httpwire.DecodeHeaderValue(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("httpwire.DecodeHeaderValue(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestModernSSE(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	body := modernReq(1, "tools/call", `"name":"progress","arguments":{}`)
	body = strings.Replace(body, `"_meta":{`, `"_meta":{"progressToken":"p1",`, 1)
	r := hn.post(body, modernHeaders("tools/call", "progress")...)
	if r.status != 200 || r.header.Get("X-Accel-Buffering") != "no" || r.header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("status %d, headers %v", r.status, r.header)
	}
	evs := events(t, r)
	if len(evs) != 2 {
		t.Fatalf("got %d events, want 2: %+v", len(evs), evs)
	}
	if !strings.Contains(evs[0].Data, `"notifications/progress"`) || !strings.Contains(evs[1].Data, `"result"`) {
		t.Fatalf("events %+v", evs)
	}
	for _, e := range evs {
		if e.HasID {
			t.Errorf("2026-07-28 event with an id: %+v", e)
		}
	}
	// Without a notification before it, the result is JSON.
	body = strings.Replace(modernCall(2, "add", `{"a":1,"b":2}`), `"_meta":{`, `"_meta":{"progressToken":"p2",`, 1)
	if r := hn.post(body, modernHeaders("tools/call", "add")...); r.status != 200 || r.resp != nil {
		t.Fatalf("add: %d, stream %v", r.status, r.resp != nil)
	}
}

func TestModernKeepAlive(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{SSE: true, KeepAlive: 5e6})
	r := hn.post(modernCall(1, "slow", `{"key":"k"}`), modernHeaders("tools/call", "slow")...)
	recv(t, hn.started, "the call")
	br := bufio.NewReader(r.resp.Body)
	readKeepAlive(t, br)
	hn.release <- struct{}{}
	rest := events(t, reply{resp: &http.Response{Body: readCloser{br, r.resp.Body}}})
	if len(rest) != 1 || !strings.Contains(rest[0].Data, `"slow":true`) {
		t.Fatalf("events %+v", rest)
	}
}

// With Options.SSE and no keep-alives, a slow call's stream still starts
// (headers flushed) before its result: the client is not left waiting for
// the response to begin.
func TestModernSSEStartsBeforeResult(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{SSE: true, KeepAlive: -1})
	got := hn.postAsync(modernCall(1, "slow", `{"key":"h"}`), modernHeaders("tools/call", "slow")...)
	recv(t, hn.started, "the call")
	r := recv(t, got, "the response headers while the call still runs")
	if ct := r.header.Get("Content-Type"); ct != "text/event-stream" || r.resp == nil {
		t.Fatalf("Content-Type %q, stream %v", ct, r.resp != nil)
	}
	hn.release <- struct{}{}
	evs := events(t, r)
	if len(evs) != 1 || !strings.Contains(evs[0].Data, `"slow":true`) {
		t.Fatalf("events %+v", evs)
	}
}

type readCloser struct {
	*bufio.Reader
	c interface{ Close() error }
}

func (rc readCloser) Close() error { return rc.c.Close() }

// Closing the response cancels a 2026-07-28 call.
func TestModernCancelByDisconnect(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hn.url, strings.NewReader(modernCall(1, "slow", `{"key":"k"}`)))
		req.Header.Set("Content-Type", "application/json")
		for kv := modernHeaders("tools/call", "slow"); len(kv) > 1; kv = kv[2:] {
			req.Header.Set(kv[0], kv[1])
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			t.Errorf("the call was answered: %d", resp.StatusCode)
		}
	}()
	recv(t, hn.started, "the call")
	cancel()
	if key := recv(t, hn.cancelled, "the cancellation"); key != "k" {
		t.Fatalf("cancelled %q", key)
	}
	<-done
}

// TestInvalidIDsOnEarlyErrors: a request refused before the session reads it
// (a header that disagrees with the body, an unknown session, a version the
// session does not speak) whose id is not valid JSON gets what invalid JSON
// gets everywhere else, 400 with -32700 and id null, never its raw id echoed;
// a null or fractional id is refused with id null.
func TestInvalidIDsOnEarlyErrors(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, nil)
	sid := hn.initialize(mcp.Version20251125)
	for _, id := range []string{`00`, `01`, `-01`, `1.`, `1e`, `0x10`, `"a\u12"`} {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"add",` + modernMeta + `}}`
		wantError(t, hn.post(body, modernHeaders("tools/list", "add")...), 400, -32700, "null")
		wantError(t, hn.post(body, "Mcp-Session-Id", "unknown"), 400, -32700, "null")
		wantError(t, hn.post(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2099-01-01"), 400, -32700, "null")
	}
	for _, id := range []string{`null`, `1.5`, `2e3`} {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"add",` + modernMeta + `}}`
		wantError(t, hn.post(body, modernHeaders("tools/list", "add")...), 400, mcp.CodeHeaderMismatch, "null")
		wantError(t, hn.post(body, modernHeaders("tools/call", "add")...), 400, -32600, "null")
		wantError(t, hn.post(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, "Mcp-Session-Id", sid), 400, -32600, "null")
	}
}

// With Options.SSE and keep-alives no more frequent than primeDelay, a slow
// 2026-07-28 call's headers wait in the handler's queue (primer.go), go out
// on their own, and the keep-alive comments follow them.
func TestModernPrimedKeepAlive(t *testing.T) {
	rpctest.CheckLeaks(t)
	hn := newHarness(t, &Options{SSE: true, KeepAlive: 2 * primeDelay})
	got := hn.postAsync(modernCall(1, "slow", `{"key":"q"}`), modernHeaders("tools/call", "slow")...)
	recv(t, hn.started, "the call")
	r := recv(t, got, "the response headers while the call still runs")
	br := bufio.NewReader(r.resp.Body)
	readKeepAlive(t, br)
	readKeepAlive(t, br)
	hn.release <- struct{}{}
	rest := events(t, reply{resp: &http.Response{Body: readCloser{br, r.resp.Body}}})
	if len(rest) != 1 || !strings.Contains(rest[0].Data, `"slow":true`) {
		t.Fatalf("events %+v", rest)
	}
}
