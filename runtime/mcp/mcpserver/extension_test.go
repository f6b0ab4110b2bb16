package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// The extension used by these tests: com.example/search with one request,
// search/query, and a request of another extension the server never adds.
const searchExt = "com.example/search"

var (
	searchQuery = mcp.RegisterMethod(mcp.Method{Name: "search/query", Direction: mcp.ClientToServer,
		Extension: searchExt, Retry: mcp.RetrySafe})
	searchFail = mcp.RegisterMethod(mcp.Method{Name: "search/fail", Direction: mcp.ClientToServer,
		Extension: searchExt})
	otherPing = mcp.RegisterMethod(mcp.Method{Name: "other/ping", Direction: mcp.ClientToServer,
		Extension: "com.example/other"})
)

// newSearchServer serves com.example/search: search/query echoes its query
// and the client's settings for the extension; search/fail fails as its
// params say.
func newSearchServer(t testing.TB) *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "ext", Version: "1.0.0"}, nil)
	srv.AddExtension(mcpserver.ServerExtension{
		ID:       searchExt,
		Settings: json.RawMessage(`{ "maxResults": 10 }`),
		Methods: map[string]mcpserver.ExtensionHandler{
			searchQuery.Name: func(ctx context.Context, params json.RawMessage) (any, error) {
				var p struct {
					Query string `json:"query"`
				}
				if err := json.Unmarshal(params, &p); err != nil || p.Query == "" {
					return nil, runtime.InvalidParams(`"query" must be a non-empty string`)
				}
				settings, ok := mcpserver.ClientExtension(ctx, searchExt)
				if !ok {
					return nil, errors.New("handler ran for a client that did not declare the extension")
				}
				return map[string]any{"hits": []string{p.Query + "!"}, "clientSettings": settings}, nil
			},
			searchFail.Name: func(ctx context.Context, params json.RawMessage) (any, error) {
				var p struct{ How string }
				json.Unmarshal(params, &p)
				switch p.How {
				case "panic":
					panic("boom")
				case "array":
					return json.RawMessage(`[1]`), nil
				case "none":
					return nil, nil
				case "typed":
					return json.RawMessage(`{"resultType":"task","task":{"id":"t1"},"_meta":{"com.example/x":1}}`), nil
				}
				return nil, errors.New("it failed")
			},
		},
	})
	return srv
}

const (
	extVersionMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	searchCaps     = `{"extensions":{"com.example/search":{"lang":"en"}}}`
	extMeta        = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ext","version":"1.0.0"}}`
)

// modern sends one 2026-07-28 request with the client capabilities caps to
// a fresh session and returns the reply.
func modern(t *testing.T, srv *mcpserver.Server, method, params, caps string) string {
	t.Helper()
	p := `{` + params
	if params != "" {
		p += ","
	}
	p += `"_meta":{` + extVersionMeta + `,"io.modelcontextprotocol/clientCapabilities":` + caps + `}}`
	return string(srv.NewSession().Handle(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+p+`}`), nil))
}

// TestExtensionModernWire serves an extension's method in 2026-07-28: the
// server declares the extension in server/discover; a request from a client
// that declared it is answered as every result of the revision is; one from
// a client that did not, or for an extension the server does not have, is
// refused as the specification says.
func TestExtensionModernWire(t *testing.T) {
	srv := newSearchServer(t)
	const discover = `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"logging":{},"extensions":{"com.example/search":{"maxResults":10}}},"ttlMs":0,"cacheScope":"public","resultType":"complete",` + extMeta + `}}`
	if got := modern(t, srv, "server/discover", "", `{}`); got != discover {
		t.Errorf("server/discover:\n got %s\nwant %s", got, discover)
	}
	for _, tc := range []struct{ name, method, params, caps, want string }{
		{"declared", "search/query", `"query":"go"`, searchCaps,
			`{"jsonrpc":"2.0","id":1,"result":{"clientSettings":{"lang":"en"},"hits":["go!"],"resultType":"complete",` + extMeta + `}}`},
		{"not declared", "search/query", `"query":"go"`, `{}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Server requires the com.example/search extension for this request","data":{"requiredCapabilities":{"extensions":{"com.example/search":{}}}}}}`},
		{"declared null", "search/query", `"query":"go"`, `{"extensions":{"com.example/search":null}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Server requires the com.example/search extension for this request","data":{"requiredCapabilities":{"extensions":{"com.example/search":{}}}}}}`},
		{"another extension declared", "search/query", `"query":"go"`, `{"extensions":{"com.example/other":{}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Server requires the com.example/search extension for this request","data":{"requiredCapabilities":{"extensions":{"com.example/search":{}}}}}}`},
		{"bad params", "search/query", `"query":3`, searchCaps,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: \"query\" must be a non-empty string"}}`},
		{"handler error", "search/fail", ``, searchCaps,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"it failed"}}`},
		{"panic", "search/fail", `"how":"panic"`, searchCaps,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error in search/fail"}}`},
		{"not an object", "search/fail", `"how":"array"`, searchCaps,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the result of search/fail is not a JSON object"}}`},
		{"no result", "search/fail", `"how":"none"`, searchCaps,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",` + extMeta + `}}`},
		{"own resultType and _meta", "search/fail", `"how":"typed"`, searchCaps,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","task":{"id":"t1"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ext","version":"1.0.0"},"com.example/x":1}}}`},
		{"extension not served", "other/ping", ``, `{"extensions":{"com.example/other":{}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":"other/ping"}}`},
	} {
		if got := modern(t, srv, tc.method, tc.params, tc.caps); got != tc.want {
			t.Errorf("%s: %s:\n got %s\nwant %s", tc.name, tc.method, got, tc.want)
		}
	}
}

// TestExtensionLegacyWire serves the same extension in a 2025-11-25 session:
// initialize declares it, and the client's initialize capabilities decide
// whether its methods are answered.
func TestExtensionLegacyWire(t *testing.T) {
	srv := newSearchServer(t)
	for _, tc := range []struct{ name, caps, want string }{
		{"declared", searchCaps, `{"jsonrpc":"2.0","id":2,"result":{"clientSettings":{"lang":"en"},"hits":["go!"]}}`},
		{"not declared", `{"roots":{}}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"Server requires the com.example/search extension for this request","data":{"requiredCapabilities":{"extensions":{"com.example/search":{}}}}}}`},
	} {
		ss := srv.NewSession()
		init := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+tc.caps+`,"clientInfo":{"name":"c","version":"1"}}}`), nil))
		const wantInit = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{},"extensions":{"com.example/search":{"maxResults":10}}},"serverInfo":{"name":"ext","version":"1.0.0"}}}`
		if init != wantInit {
			t.Fatalf("%s: initialize:\n got %s\nwant %s", tc.name, init, wantInit)
		}
		got := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"search/query","params":{"query":"go"}}`), nil))
		if got != tc.want {
			t.Errorf("%s: search/query:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	// A server without the extension does not know its methods, and
	// declares no extensions.
	bare := mcpserver.New(mcp.Implementation{Name: "bare", Version: "1"}, nil)
	ss := bare.NewSession()
	init := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+searchCaps+`,"clientInfo":{"name":"c","version":"1"}}}`), nil))
	if strings.Contains(init, "extensions") {
		t.Errorf("a server with no extension declared some: %s", init)
	}
	got := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"search/query","params":{"query":"go"}}`), nil))
	if want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"search/query"}}`; got != want {
		t.Errorf("search/query on a server without the extension:\n got %s\nwant %s", got, want)
	}
}

// TestAddExtensionPanics holds AddExtension to its programmer errors.
func TestAddExtensionPanics(t *testing.T) {
	h := func(context.Context, json.RawMessage) (any, error) { return struct{}{}, nil }
	for _, tc := range []struct {
		name string
		ext  mcpserver.ServerExtension
		want string
	}{
		{"no prefix", mcpserver.ServerExtension{ID: "search"}, "no vendor prefix"},
		{"bad label", mcpserver.ServerExtension{ID: "com.1example/search"}, "prefix label"},
		{"settings", mcpserver.ServerExtension{ID: searchExt, Settings: json.RawMessage(`[]`)}, "must be a JSON object"},
		{"unregistered", mcpserver.ServerExtension{ID: searchExt, Methods: map[string]mcpserver.ExtensionHandler{"search/nothing": h}}, "not in the method table"},
		{"other's method", mcpserver.ServerExtension{ID: searchExt, Methods: map[string]mcpserver.ExtensionHandler{otherPing.Name: h}}, `belongs to "com.example/other"`},
		{"core method", mcpserver.ServerExtension{ID: searchExt, Methods: map[string]mcpserver.ExtensionHandler{"tools/list": h}}, `belongs to ""`},
		{"nil handler", mcpserver.ServerExtension{ID: searchExt, Methods: map[string]mcpserver.ExtensionHandler{searchQuery.Name: nil}}, "nil handler"},
	} {
		func() {
			defer func() {
				v := recover()
				if s, _ := v.(string); !strings.Contains(s, tc.want) {
					t.Errorf("%s: panic %v, want one saying %q", tc.name, v, tc.want)
				}
			}()
			mcpserver.New(mcp.Implementation{Name: "x"}, nil).AddExtension(tc.ext)
		}()
	}
	srv := newSearchServer(t)
	func() {
		defer func() {
			if v, _ := recover().(string); !strings.Contains(v, "already added") {
				t.Errorf("second AddExtension of %s: panic %q", searchExt, v)
			}
		}()
		srv.AddExtension(mcpserver.ServerExtension{ID: searchExt})
	}()
	if got := srv.Extensions(); len(got) != 1 || got[0].ID != searchExt || string(got[0].Settings) != `{"maxResults":10}` {
		t.Errorf("Extensions() = %+v", got)
	}
}
