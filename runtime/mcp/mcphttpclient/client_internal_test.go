package mcphttpclient

import (
	"slices"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

// TestClientHeaderValue checks the value encoding of 2026-07-28 request
// headers against the specification's examples.
func TestClientHeaderValue(t *testing.T) {
	cases := []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"get_weather", "get_weather"},
		{"file:///projects/myapp/config.json", "file:///projects/myapp/config.json"},
		{"inner space", "inner space"},
		{"", ""},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"tab\t", "=?base64?dGFiCQ==?="},
		{"\x7f", "=?base64?fw==?="},
	}
	for _, tc := range cases {
		if got := httpwire.EncodeHeaderValue(tc.in); got != tc.want {
			t.Errorf("httpwire.EncodeHeaderValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScanClientMessage(t *testing.T) {
	cases := []struct {
		msg  string
		want clientMessage
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"name":"x","uri":"y"},"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			clientMessage{method: "tools/call", name: "add", hasName: true, version: "2026-07-28"}},
		{`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"name":"n","uri":"file:///a"}}`,
			clientMessage{method: "resources/read", name: "file:///a", hasName: true}},
		{`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"caf\u00e9"}}`,
			clientMessage{method: "prompts/get", name: "café", hasName: true}},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"name":"ignored"}}`,
			clientMessage{method: "tools/list"}},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			clientMessage{method: "notifications/initialized"}},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, clientMessage{}},
		{`not json`, clientMessage{}},
	}
	for _, tc := range cases {
		got := scanClientMessage([]byte(tc.msg))
		if got.method != tc.want.method || got.name != tc.want.name || got.hasName != tc.want.hasName || got.version != tc.want.version {
			t.Errorf("scanClientMessage(%s) = %+v, want %+v", tc.msg, got, tc.want)
		}
	}
}

func TestClientWithID(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"m"}}`, `{"jsonrpc":"2.0","id":9,"error":{"code":-32020,"message":"m"}}`},
		{`{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"m"}}`, `{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"m"}}`},
		{`{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}`, `{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"m"}}`},
		{`{"jsonrpc":"2.0","id":9,"result":{}}`, ""},
		{`{"error":"text"}`, ""},
		{`<html>`, ""},
	}
	for _, tc := range cases {
		got, ok := clientWithID(9, []byte(tc.body))
		if string(got) != tc.want || ok != (tc.want != "") {
			t.Errorf("clientWithID(%s) = %s, %v", tc.body, got, ok)
		}
	}
}

func TestClientMediaType(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                true,
		"Application/JSON; charset=utf-8": true,
		" application/json":               true,
		"application/jsonx":               false,
		"application/json-seq":            false,
		"text/event-stream":               false,
		"":                                false,
	} {
		if got := clientMediaType(ct, "application/json"); got != want {
			t.Errorf("clientMediaType(%q) = %v", ct, got)
		}
	}
}

func TestClientToolAnnotations(t *testing.T) {
	cases := []struct {
		schema  string
		headers []string // canonical header names, in order
		bad     bool
	}{
		{`{"type":"object"}`, nil, false},
		{`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"},"q":{"type":"string"}}}`, []string{"Mcp-Param-Region"}, false},
		{`{"properties":{"w":{"type":"object","properties":{"z":{"type":"integer","x-mcp-header":"zone-id"}}}}}`, []string{"Mcp-Param-Zone-Id"}, false},
		{`{"properties":{"a":{"type":"boolean","x-mcp-header":"A"},"b":{"x-mcp-header":"B"}}}`, []string{"Mcp-Param-A", "Mcp-Param-B"}, false},
		{`{"properties":{"a":{"type":"string","description":"see \"x-mcp-header\": docs"}}}`, nil, false},
		{`{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, nil, true},
		{`{"properties":{"a":{"type":"string","x-mcp-header":"has space"}}}`, nil, true},
		{`{"properties":{"a":{"type":"string","x-mcp-header":""}}}`, nil, true},
		{`{"properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"r"}}}`, nil, true},
		{`{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, nil, true},
		{`{"oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, nil, true},
	}
	for _, tc := range cases {
		tool := `{"name":"t","inputSchema":` + tc.schema + `}`
		name, params, problem := clientToolAnnotations([]byte(tool))
		var headers []string
		for _, p := range params {
			headers = append(headers, p.Header)
		}
		if name != "t" || (problem != "") != tc.bad || !slices.Equal(headers, tc.headers) {
			t.Errorf("%s: %q, %v, problem %q", tc.schema, name, headers, problem)
		}
	}
}

func TestClientArgument(t *testing.T) {
	args := []byte(`{"s":"v","i":-7,"b":true,"n":null,"o":{"x":"y"},"a":[1],"e":"caf\u00e9"}`)
	cases := []struct {
		path []string
		want string
		ok   bool
	}{
		{[]string{"s"}, "v", true},
		{[]string{"i"}, "-7", true},
		{[]string{"b"}, "true", true},
		{[]string{"n"}, "", false},
		{[]string{"o"}, "", false},
		{[]string{"a"}, "", false},
		{[]string{"o", "x"}, "y", true},
		{[]string{"missing"}, "", false},
		{[]string{"s", "deeper"}, "", false},
		{[]string{"e"}, "café", true},
	}
	for _, tc := range cases {
		got, ok := clientArgument(args, tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("clientArgument(%v) = %q, %v", tc.path, got, ok)
		}
	}
	if _, ok := clientArgument(nil, []string{"s"}); ok {
		t.Error("a value in no arguments")
	}
}
