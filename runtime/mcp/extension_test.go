package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// TestCheckExtensionID holds identifiers to the _meta key rules with a
// mandatory prefix.
func TestCheckExtensionID(t *testing.T) {
	for _, id := range []string{
		"io.modelcontextprotocol/skills", "io.modelcontextprotocol/ui", "com.example/search",
		"com.example/oauth-client-credentials-v2", "a/b", "x1.y-2/n_a.m-e9", "com.example.mcp/x",
	} {
		if err := mcp.CheckExtensionID(id); err != nil {
			t.Errorf("CheckExtensionID(%q) = %v, want nil", id, err)
		}
	}
	for id, want := range map[string]string{
		"":                      "empty",
		"search":                "no vendor prefix",
		"/search":               "no vendor prefix",
		"com.example/":          "no name",
		"com..example/x":        `label ""`,
		"1com.example/x":        `label "1com"`,
		"com-.example/x":        `label "com-"`,
		"com.ex_ample/x":        `label "ex_ample"`,
		"com.example/-x":        "begin and end",
		"com.example/x.":        "begin and end",
		"com.example/a b":       "only letters",
		"com.example/a/b":       "only letters",
		"com.example/caf\u00e9": "begin and end",
	} {
		err := mcp.CheckExtensionID(id)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckExtensionID(%q) = %v, want an error saying %q", id, err, want)
		}
	}
}

// TestCheckExtensionMethod refuses the method names an extension cannot
// take.
func TestCheckExtensionMethod(t *testing.T) {
	for _, tc := range []struct {
		name         string
		notification bool
		want         string // "" for valid
	}{
		{"skills/list", false, ""},
		{"tasks/get", false, ""},
		{"resources/directory/read", false, ""},
		{"notifications/tasks/status", true, ""},
		{"search", false, ""},
		{"", false, "empty"},
		{"tools/call", false, "protocol itself"},
		{"server/discover", false, "protocol itself"},
		{"resources/subscribe", false, "protocol itself"},
		{"notifications/initialized", true, "protocol itself"},
		{"notifications/elicitation/complete", true, "protocol itself"},
		{"rpc.x", false, "rpc."},
		{"a b", false, "white space"},
		{"search/done", true, "must be named under notifications/"},
		{"notifications/search", false, "where notifications are"},
	} {
		err := mcp.CheckExtensionMethod(tc.name, tc.notification)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckExtensionMethod(%q, %v) = %v, want %q", tc.name, tc.notification, err, tc.want)
		}
	}
}

// TestExtensionSettings reads a capabilities object's declarations.
func TestExtensionSettings(t *testing.T) {
	caps := json.RawMessage(`{"roots":{},"extensions":{"com.example/a":{},"com.example/b": {"x":[1]},"com.example/n":null,"com.example/s":"yes"}}`)
	for id, want := range map[string]string{"com.example/a": `{}`, "com.example/b": `{"x":[1]}`} {
		if got, ok := mcp.ExtensionSettings(caps, id); !ok || string(got) != want {
			t.Errorf("ExtensionSettings(%s) = %s, %v; want %s", id, got, ok, want)
		}
	}
	for _, id := range []string{"com.example/n", "com.example/s", "com.example/c", "roots"} {
		if got, ok := mcp.ExtensionSettings(caps, id); ok {
			t.Errorf("ExtensionSettings(%s) = %s, true; want not declared", id, got)
		}
	}
	for _, c := range []string{``, `{}`, `[]`, `{"extensions":[]}`, `{"extensions":null}`} {
		if _, ok := mcp.ExtensionSettings(json.RawMessage(c), "com.example/a"); ok {
			t.Errorf("ExtensionSettings(%s) declares com.example/a", c)
		}
	}
}

// TestErrExtensionRequired is the error 2026-07-28 gives for a capability
// the client did not declare.
func TestErrExtensionRequired(t *testing.T) {
	e := mcp.ErrExtensionRequired("com.example/a", "io.modelcontextprotocol/ui")
	got, _ := json.Marshal(e)
	const want = `{"code":-32021,"message":"Server requires the com.example/a, io.modelcontextprotocol/ui extension for this request","data":{"requiredCapabilities":{"extensions":{"com.example/a":{},"io.modelcontextprotocol/ui":{}}}}}`
	if string(got) != want {
		t.Errorf("ErrExtensionRequired:\n got %s\nwant %s", got, want)
	}
}

// TestParamsWithoutMeta drops the params' own _meta, and nothing else.
func TestParamsWithoutMeta(t *testing.T) {
	for in, want := range map[string]string{
		`{"q":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"n":1}`: `{"q":"a","n":1}`,
		`{"_meta":{}}`:               `{}`,
		`{"q":{"_meta":1}}`:          `{"q":{"_meta":1}}`,
		`{}`:                         `{}`,
		`[1]`:                        `[1]`,
		`{"a\u0062":1,"_meta":null}`: `{"ab":1}`,
	} {
		if got := string(mcp.ParamsWithoutMeta(json.RawMessage(in))); got != want {
			t.Errorf("ParamsWithoutMeta(%s) = %s, want %s", in, got, want)
		}
	}
}
