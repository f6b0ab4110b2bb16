package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

const notesExt = "com.example/notes-search"

var notesFind = mcp.RegisterMethod(mcp.Method{Name: "notes-search/find", Direction: mcp.ClientToServer,
	Extension: notesExt, Retry: mcp.RetrySafe})

// notesExtServer serves notes-search/find, which answers the query and the
// settings the client declared for the extension.
func notesExtServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "notes", Version: "1"}, nil)
	srv.AddExtension(mcpserver.ServerExtension{
		ID:       notesExt,
		Settings: json.RawMessage(`{"fuzzy":true}`),
		Methods: map[string]mcpserver.ExtensionHandler{
			notesFind.Name: func(ctx context.Context, params json.RawMessage) (any, error) {
				var p struct{ Query string }
				if err := json.Unmarshal(params, &p); err != nil {
					return nil, runtime.InvalidParams("%v", err)
				}
				settings, _ := mcpserver.ClientExtension(ctx, notesExt)
				return map[string]any{"found": []string{"note about " + p.Query}, "settings": settings}, nil
			},
		},
	})
	return srv
}

// TestCallExtension calls an extension's method through the typed client in
// both eras: the client declares the extension in its capabilities, reads
// the server's declaration, and gets the result; without the declaration on
// either side it sends nothing and says why.
func TestCallExtension(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		srv := notesExtServer()
		c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: version,
			Extensions: []mcp.Extension{{ID: notesExt, Settings: json.RawMessage(`{ "lang": "en" }`)}}})
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := c.ServerExtension(notesExt); !ok || string(s) != `{"fuzzy":true}` {
			t.Errorf("%s: ServerExtension = %s, %v", version, s, ok)
		}
		if _, ok := c.ServerExtension("com.example/other"); ok {
			t.Errorf("%s: ServerExtension of an undeclared extension reports it", version)
		}
		var res struct {
			Found    []string        `json:"found"`
			Settings json.RawMessage `json:"settings"`
		}
		if err := c.CallExtension(ctx, notesFind.Name, map[string]string{"query": "go"}, &res); err != nil {
			t.Fatalf("%s: CallExtension: %v", version, err)
		}
		if len(res.Found) != 1 || res.Found[0] != "note about go" || string(res.Settings) != `{"lang":"en"}` {
			t.Errorf("%s: result %+v (settings %s)", version, res, res.Settings)
		}
		// Through the runtime.Caller a generated client calls.
		type found struct{ Found []string }
		got, err := runtime.Call[found](ctx, mcp.ExtensionConn(c), notesFind.Name, map[string]string{"query": "rust"})
		if err != nil || len(got.Found) != 1 || got.Found[0] != "note about rust" {
			t.Errorf("%s: through ExtensionConn: %+v, %v", version, got, err)
		}
		if err := mcp.ExtensionConn(c).Notify(ctx, "notifications/x", nil); err == nil {
			t.Errorf("%s: ExtensionConn's Notify sent a notification", version)
		}
		if err := c.CallExtension(ctx, mcp.MethodToolsList, nil, nil); err == nil || !strings.Contains(err.Error(), "not an extension's method") {
			t.Errorf("%s: CallExtension(tools/list) = %v", version, err)
		}
		c.Close()

		// A client that does not declare the extension sends nothing.
		c, err = mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CallExtension(ctx, notesFind.Name, map[string]string{"query": "go"}, nil); !errors.Is(err, mcpclient.ErrExtensionNotDeclared) {
			t.Errorf("%s: undeclared by the client: %v, want ErrExtensionNotDeclared", version, err)
		}
		c.Close()

		// A server without the extension is not sent its methods.
		bare := mcpserver.New(mcp.Implementation{Name: "bare", Version: "1"}, nil)
		c, err = mcpclient.ConnectTransport(ctx, bare.InProcess(), mcpclient.Options{ProtocolVersion: version,
			Extensions: []mcp.Extension{{ID: notesExt}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CallExtension(ctx, notesFind.Name, nil, nil); !errors.Is(err, mcpclient.ErrExtensionNotOffered) {
			t.Errorf("%s: undeclared by the server: %v, want ErrExtensionNotOffered", version, err)
		}
		c.Close()
	}
}

// TestExtensionsDeclared checks what the client declares, on the wire, and
// the options it refuses.
func TestExtensionsDeclared(t *testing.T) {
	ctx := context.Background()
	srv := mcpserver.New(mcp.Implementation{Name: "caps", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "caps", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		return json.Marshal(string(mcpserver.ClientCapabilities(ctx)))
	}})
	for _, tc := range []struct {
		name string
		opts mcpclient.Options
		want string
	}{
		{"alone", mcpclient.Options{Extensions: []mcp.Extension{{ID: "io.modelcontextprotocol/ui", Settings: json.RawMessage(`{"mimeTypes":["text/html;profile=mcp-app"]}`)}}},
			`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`},
		{"with capabilities", mcpclient.Options{Capabilities: json.RawMessage(`{"roots": {}}`), Extensions: []mcp.Extension{{ID: "com.example/a"}, {ID: "com.example/b"}}},
			`{"roots":{},"extensions":{"com.example/a":{},"com.example/b":{}}}`},
	} {
		for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
			c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: version,
				Capabilities: tc.opts.Capabilities, Extensions: tc.opts.Extensions})
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "caps"})
			if err != nil || len(res.Content) != 1 {
				t.Fatalf("caps: %+v, %v", res, err)
			}
			var got string
			if err := json.Unmarshal([]byte(res.Content[0].Text), &got); err != nil {
				t.Fatalf("caps: %q: %v", res.Content[0].Text, err)
			}
			if got != tc.want {
				t.Errorf("%s, %s: the server saw capabilities %s, want %s", tc.name, version, got, tc.want)
			}
			c.Close()
		}
	}
	for _, tc := range []struct {
		name string
		opts mcpclient.Options
		want string
	}{
		{"bad id", mcpclient.Options{Extensions: []mcp.Extension{{ID: "search"}}}, "no vendor prefix"},
		{"twice", mcpclient.Options{Extensions: []mcp.Extension{{ID: "com.example/a"}, {ID: "com.example/a"}}}, "twice"},
		{"settings", mcpclient.Options{Extensions: []mcp.Extension{{ID: "com.example/a", Settings: json.RawMessage(`true`)}}}, "must be a JSON object"},
		{"both", mcpclient.Options{Capabilities: json.RawMessage(`{"extensions":{}}`), Extensions: []mcp.Extension{{ID: "com.example/a"}}}, "one place"},
	} {
		_, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Connect = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
