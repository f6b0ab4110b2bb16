package mcp_test

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

func TestCheckIcon(t *testing.T) {
	for _, tc := range []struct {
		icon mcp.Icon
		want string // "" for accepted
	}{
		{mcp.Icon{Src: "https://example.com/i.png"}, ""},
		{mcp.Icon{Src: "http://localhost:8080/i.svg", MIMEType: "image/svg+xml", Sizes: []string{"any", "16x16"}, Theme: "light"}, ""},
		{mcp.Icon{Src: "data:image/png;base64,iVBORw0KGgo=", Theme: "dark"}, ""},
		{mcp.Icon{}, "icon has no src"},
		{mcp.Icon{Src: "https:/x"}, "is not an absolute URL"},
		{mcp.Icon{Src: "https://"}, "is not an absolute URL"},
		{mcp.Icon{Src: "file:///i.png"}, "want an https URL or a data: URI"},
		{mcp.Icon{Src: "i.png"}, "want an https URL or a data: URI"},
		{mcp.Icon{Src: "https://x/a b.png"}, "space or control character"},
		{mcp.Icon{Src: "data:image/png,abc"}, "must hold base64 data"},
		{mcp.Icon{Src: "data:text/plain;base64,YQ=="}, `data: URI of type "text/plain", not an image`},
		{mcp.Icon{Src: "data:image/png;base64,***"}, "bad base64"},
		{mcp.Icon{Src: "https://x/i", MIMEType: "text/html"}, "not an image type"},
		{mcp.Icon{Src: "https://x/i", Sizes: []string{"0x4"}}, `icon size "0x4"`},
		{mcp.Icon{Src: "https://x/i", Sizes: []string{"48X48"}}, `icon size "48X48"`},
		{mcp.Icon{Src: "https://x/i", Theme: "Dark"}, `icon theme "Dark"`},
		{mcp.Icon{Src: "data:image/png;base64," + strings.Repeat("A", 1<<20)}, "more than the 1 MiB allowed"},
	} {
		err := mcp.CheckIcon(tc.icon)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckIcon(%.80v) = %v, want %q", tc.icon, err, tc.want)
		}
	}
}

func TestCheckMeta(t *testing.T) {
	for key, ok := range map[string]bool{
		"ui": true, "ui/resourceUri": true, "com.example/x-y_z.1": true, "io.github.rpcgen/": true,
		"": false, "-x": false, "x-": false, "a b": false, "1com/x": false, "com./x": false, "com/x/y": false,
	} {
		if err := mcp.CheckMetaKey(key); (err == nil) != ok {
			t.Errorf("CheckMetaKey(%q) = %v, want ok %v", key, err, ok)
		}
	}
	for raw, want := range map[string]string{
		`{"a":1,"com.example/b":{"c":[]}}`: "",
		`[]`:                               "not a JSON object",
		`{"a":1`:                           "not a JSON object",
		`{"a":1,"a":2}`:                    `"a" given twice`,
		`{"a b":1}`:                        `_meta key "a b"`,
	} {
		err := mcp.CheckMeta([]byte(raw))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckMeta(%s) = %v, want %q", raw, err, want)
		}
	}
	for key, want := range map[string]bool{"io.modelcontextprotocol/ui": true, "dev.mcp/x": true, "com.example/x": false, "ui": false, "mcp/x": false} {
		if mcp.ReservedMetaKey(key) != want {
			t.Errorf("ReservedMetaKey(%q) = %v", key, !want)
		}
	}
}
