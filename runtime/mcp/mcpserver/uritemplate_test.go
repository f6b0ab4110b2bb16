package mcpserver_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

func TestParseURITemplate(t *testing.T) {
	for _, bad := range []string{
		"", "notes://{", "notes://}", "notes://{}", "notes://{+id}", "notes://{id*}", "notes://{a,b}",
		"notes://{id:3}", "notes://{a}{b}", "notes://{a}/{a}", "no-scheme/{id}", "{scheme}x",
		"notes://a b/{id}", "notes://{.id}",
	} {
		if _, err := mcpserver.ParseURITemplate(bad); err == nil {
			t.Errorf("ParseURITemplate(%q) succeeded", bad)
		}
	}
	tm, err := mcpserver.ParseURITemplate("file:///docs/{dir}/{name}.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tm.Vars(), ","); got != "dir,name" {
		t.Errorf("Vars = %s", got)
	}
	for _, tc := range []struct {
		uri  string
		want map[string]string
	}{
		{"file:///docs/a/b.md", map[string]string{"dir": "a", "name": "b"}},
		{"file:///docs/a/b.c.md", map[string]string{"dir": "a", "name": "b.c"}},
		{"file:///docs/x%20y/%C3%A9t%C3%A9.md", map[string]string{"dir": "x y", "name": "été"}},
		{"file:///docs/a/b/c.md", nil}, // a variable never spans '/'
		{"file:///docs//b.md", nil},    // nor matches nothing
		{"file:///docs/a/b.txt", nil},
		{"file:///docs/a/%zz.md", nil}, // bad escape
		{"xfile:///docs/a/b.md", nil},
	} {
		got, ok := tm.Match(tc.uri)
		if ok != (tc.want != nil) || !maps.Equal(got, tc.want) {
			t.Errorf("Match(%q) = %v, %v; want %v", tc.uri, got, ok, tc.want)
		}
	}
}

func TestEscapeURIVar(t *testing.T) {
	for in, want := range map[string]string{
		"":            "",
		"abc-._~XYZ9": "abc-._~XYZ9",
		"a b/c?d#e%":  "a%20b%2Fc%3Fd%23e%25",
		"été":         "%C3%A9t%C3%A9",
	} {
		if got := mcp.EscapeURIVar(in); got != want {
			t.Errorf("EscapeURIVar(%q) = %q, want %q", in, got, want)
		}
	}
	// What a client builds with EscapeURIVar, the server matches back.
	tm, err := mcpserver.ParseURITemplate("notes://{id}/raw")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"plain", "with/slash", "a b&c=d", "100%", "日本"} {
		got, ok := tm.Match("notes://" + mcp.EscapeURIVar(v) + "/raw")
		if !ok || got["id"] != v {
			t.Errorf("round trip of %q: %v %v", v, got, ok)
		}
	}
}
