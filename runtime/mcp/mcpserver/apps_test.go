package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// appSession is a session initialized in revision version.
func appSession(t *testing.T, srv *mcpserver.Server, version string) *mcpserver.Session {
	t.Helper()
	ss := srv.NewSession()
	init := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), nil))
	if !strings.Contains(init, `"result"`) {
		t.Fatalf("initialize: %s", init)
	}
	ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	return ss
}

func newAppServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "apps", Version: "1.0.0"}, nil)
	srv.AddTools(mcpserver.Tool{
		Name: "board", InputSchema: json.RawMessage(`{"type":"object"}`), Digest: "sha256:00",
		Meta:    json.RawMessage(`{ "ui": {"resourceUri": "ui://b/board.html"} }`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
	}, mcpserver.Tool{
		Name: "plain", InputSchema: json.RawMessage(`{"type":"object"}`),
		Meta:    json.RawMessage(`{"com.example/k":1}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil },
	})
	srv.AddApps(mcpserver.App{URI: "ui://b/board.html", Name: "board", Title: "Board", HTML: "<p>hi</p>",
		UI: json.RawMessage(`{"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true}`)})
	srv.AddApps(mcpserver.App{URI: "ui://b/other.html", Name: "other", HTML: "<p>2</p>"})
	return srv
}

// TestAppsWire: a tool's Meta joins its digest in tools/list's _meta (from
// 2025-06-18; 2025-03-26 has no _meta on tools), a view is a resource of the
// App MIME type whose content carries _meta.ui, and the extension is
// declared once however many AddApps calls there were.
func TestAppsWire(t *testing.T) {
	srv := newAppServer()
	ss := appSession(t, srv, "2025-11-25")
	list := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), nil))
	for _, want := range []string{
		`{"name":"board","inputSchema":{"type":"object"},"_meta":{"io.github.rpcgen/digest":"sha256:00","ui":{"resourceUri":"ui://b/board.html"}}}`,
		`{"name":"plain","inputSchema":{"type":"object"},"_meta":{"com.example/k":1}}`,
	} {
		if !strings.Contains(list, want) {
			t.Errorf("tools/list:\n got %s\nwant it to hold %s", list, want)
		}
	}
	res := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`), nil))
	if want := `{"uri":"ui://b/board.html","name":"board","title":"Board","mimeType":"text/html;profile=mcp-app","size":9}`; !strings.Contains(res, want) {
		t.Errorf("resources/list:\n got %s\nwant it to hold %s", res, want)
	}
	read := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"ui://b/board.html"}}`), nil))
	if want := `{"contents":[{"uri":"ui://b/board.html","mimeType":"text/html;profile=mcp-app","text":"\u003cp\u003ehi\u003c/p\u003e","_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"]},"prefersBorder":true}}}]}`; !strings.Contains(read, want) && !strings.Contains(read, strings.ReplaceAll(strings.ReplaceAll(want, `\u003c`, "<"), `\u003e`, ">")) {
		t.Errorf("resources/read:\n got %s\nwant %s", read, want)
	}
	exts := srv.Extensions()
	if len(exts) != 1 || exts[0].ID != mcp.ExtensionApps || string(exts[0].Settings) != `{}` {
		t.Errorf("Extensions() = %+v, want one %s with {}", exts, mcp.ExtensionApps)
	}
	old := appSession(t, srv, "2025-03-26")
	if list := string(old.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), nil)); strings.Contains(list, "_meta") {
		t.Errorf("2025-03-26 tools/list has _meta: %s", list)
	}
}

// TestAppsPanics: programmer errors are refused when added.
func TestAppsPanics(t *testing.T) {
	h := func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }
	for name, add := range map[string]func(*mcpserver.Server){
		"not ui":  func(s *mcpserver.Server) { s.AddApps(mcpserver.App{URI: "https://x/y", Name: "n"}) },
		"bare ui": func(s *mcpserver.Server) { s.AddApps(mcpserver.App{URI: "ui://", Name: "n"}) },
		"UI not obj": func(s *mcpserver.Server) {
			s.AddApps(mcpserver.App{URI: "ui://a", Name: "n", UI: json.RawMessage(`[1]`)})
		},
		"no name": func(s *mcpserver.Server) { s.AddApps(mcpserver.App{URI: "ui://a"}) },
		"meta not obj": func(s *mcpserver.Server) {
			s.AddTools(mcpserver.Tool{Name: "t", Handler: h, Meta: json.RawMessage(`"x"`)})
		},
		"meta digest": func(s *mcpserver.Server) {
			s.AddTools(mcpserver.Tool{Name: "t", Handler: h, Digest: "sha256:1", Meta: json.RawMessage(`{"io.github.rpcgen/digest":"x"}`)})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			add(mcpserver.New(mcp.Implementation{Name: "x", Version: "1"}, nil))
		}()
	}
}
