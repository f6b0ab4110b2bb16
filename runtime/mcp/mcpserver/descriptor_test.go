package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

const (
	pngIcon  = `data:image/png;base64,iVBORw0KGgo=`
	iconJSON = `"icons":[{"src":"https://example.com/n.svg","mimeType":"image/svg+xml","sizes":["any"],"theme":"dark"},{"src":"` + pngIcon + `","sizes":["48x48","96x96"]}]`
)

var testIcons = []mcp.Icon{
	{Src: "https://example.com/n.svg", MIMEType: "image/svg+xml", Sizes: []string{"any"}, Theme: "dark"},
	{Src: pngIcon, Sizes: []string{"48x48", "96x96"}},
}

// descriptorServer offers one of each kind of descriptor with icons and
// _meta, and a tool with a digest beside its own _meta.
func descriptorServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "d", Version: "1", WebsiteURL: "https://example.com", Icons: testIcons[:1]}, nil)
	nop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	read := func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	srv.AddTools(
		mcpserver.Tool{Name: "a", Handler: nop, Icons: testIcons, Meta: json.RawMessage(`{ "ui": {"resourceUri": "ui://a"} }`), Digest: "sha256:00"},
		mcpserver.Tool{Name: "b", Handler: nop, Meta: json.RawMessage(`{"com.example/x":1}`)},
		mcpserver.Tool{Name: "c", Handler: nop, Icons: testIcons[1:]},
	)
	srv.AddResources(mcpserver.Resource{URI: "notes://all", Name: "all", Handler: read, Icons: testIcons[1:], Meta: json.RawMessage(`{"k":true}`)})
	srv.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "notes://{id}", Name: "note", Handler: read, Icons: testIcons[:1], Meta: json.RawMessage(`{"k":2}`)})
	srv.AddPrompts(mcpserver.Prompt{Name: "p", Icons: testIcons[1:], Meta: json.RawMessage(`{"k":3}`),
		Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }})
	return srv
}

// TestDescriptorsWire: each revision lists icons and _meta as far as it
// defines them: _meta on descriptors from 2025-06-18, icons (and
// Implementation's websiteUrl) from 2025-11-25, and 2026-07-28 as 2025-11-25.
func TestDescriptorsWire(t *testing.T) {
	png := `{"src":"` + pngIcon + `","sizes":["48x48","96x96"]}`
	svg := `{"src":"https://example.com/n.svg","mimeType":"image/svg+xml","sizes":["any"],"theme":"dark"}`
	for _, tc := range []struct {
		version     string
		meta, icons bool
	}{
		{"2024-11-05", false, false},
		{"2025-03-26", false, false},
		{"2025-06-18", true, false},
		{"2025-11-25", true, true},
		{"2026-07-28", true, true},
	} {
		t.Run(tc.version, func(t *testing.T) {
			d := &handleDriver{ss: descriptorServer().NewSession()}
			m := func(meta string) string {
				if tc.meta {
					return `,"_meta":` + meta
				}
				return ""
			}
			ic := func(icons string) string {
				if tc.icons {
					return `,"icons":[` + icons + `]`
				}
				return ""
			}
			info := `{"name":"d","version":"1"` + ic(svg) + `}`
			if tc.icons {
				info = `{"name":"d","version":"1","websiteUrl":"https://example.com"` + ic(svg) + `}`
			}
			var req func(id, method string) string
			end := `}`
			if tc.version == mcp.Version20260728 {
				req = func(id, method string) string { return modernReq(id, method, "") }
				end = `,"ttlMs":0,"cacheScope":"public","resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`
			} else {
				expect(t, d, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+tc.version+`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
					res("0", `{"protocolVersion":"`+tc.version+`","capabilities":{"tools":{"listChanged":true},"logging":{},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true}`+
						map[bool]string{true: `,"completions":{}`, false: ``}[tc.version != "2024-11-05"]+`},"serverInfo":`+info+`}`))
				req = func(id, method string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}` }
			}
			digest := `{"io.github.rpcgen/digest":"sha256:00","ui":{"resourceUri":"ui://a"}}`
			expect(t, d, req("1", "tools/list"), res("1", `{"tools":[`+
				`{"name":"a","inputSchema":{"type":"object"}`+ic(svg+","+png)+m(digest)+`},`+
				`{"name":"b","inputSchema":{"type":"object"}`+m(`{"com.example/x":1}`)+`},`+
				`{"name":"c","inputSchema":{"type":"object"}`+ic(png)+`}]`+end))
			expect(t, d, req("2", "resources/list"), res("2", `{"resources":[{"uri":"notes://all","name":"all"`+ic(png)+m(`{"k":true}`)+`}]`+end))
			expect(t, d, req("3", "resources/templates/list"), res("3", `{"resourceTemplates":[{"uriTemplate":"notes://{id}","name":"note"`+ic(svg)+m(`{"k":2}`)+`}]`+end))
			expect(t, d, req("4", "prompts/list"), res("4", `{"prompts":[{"name":"p"`+ic(png)+m(`{"k":3}`)+`}]`+end))
			d.finish(t)
		})
	}
}

// TestDescriptorsRefused: a bad icon or _meta is a programmer error, which
// the Add functions and New refuse with a panic naming what is wrong.
func TestDescriptorsRefused(t *testing.T) {
	nop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	read := func(context.Context, *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	for _, tc := range []struct {
		name, want string
		add        func(*mcpserver.Server)
	}{
		{"ftp icon", `tool t: icon 0: icon src "ftp://x/i.png": want an https URL or a data: URI`, func(s *mcpserver.Server) {
			s.AddTools(mcpserver.Tool{Name: "t", Handler: nop, Icons: []mcp.Icon{{Src: "ftp://x/i.png"}}})
		}},
		{"theme", `icon theme "blue": want light or dark`, func(s *mcpserver.Server) {
			s.AddResources(mcpserver.Resource{URI: "a://b", Name: "b", Handler: read, Icons: []mcp.Icon{{Src: "https://x/i.png", Theme: "blue"}}})
		}},
		{"size", `icon size "48": want WxH (48x48) or any`, func(s *mcpserver.Server) {
			s.AddPrompts(mcpserver.Prompt{Name: "p", Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil },
				Icons: []mcp.Icon{{Src: "https://x/i.png", Sizes: []string{"48"}}}})
		}},
		{"meta array", `tool t: Meta: _meta is not a JSON object`, func(s *mcpserver.Server) {
			s.AddTools(mcpserver.Tool{Name: "t", Handler: nop, Meta: json.RawMessage(`[1]`)})
		}},
		{"meta key", `_meta key "-x": name "-x" must begin and end with a letter or digit`, func(s *mcpserver.Server) {
			s.AddResourceTemplates(mcpserver.ResourceTemplate{URITemplate: "a://{x}", Name: "x", Handler: read, Meta: json.RawMessage(`{"-x":1}`)})
		}},
		{"digest key", `Meta holds "io.github.rpcgen/digest", which the server writes itself`, func(s *mcpserver.Server) {
			s.AddTools(mcpserver.Tool{Name: "t", Handler: nop, Digest: "sha256:00", Meta: json.RawMessage(`{"io.github.rpcgen/digest":"x"}`)})
		}},
		{"server icon", `server Implementation: icon 0: icon src: data: URI of type "text/html", not an image`, func(*mcpserver.Server) {
			mcpserver.New(mcp.Implementation{Name: "x", Version: "1", Icons: []mcp.Icon{{Src: "data:text/html;base64,PGI+"}}}, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				v := recover()
				if s, _ := v.(string); !strings.Contains(s, tc.want) {
					t.Errorf("panic %v, want one containing %q", v, tc.want)
				}
			}()
			tc.add(mcpserver.New(mcp.Implementation{Name: "x", Version: "1"}, nil))
		})
	}
}
