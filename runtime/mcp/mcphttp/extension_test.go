package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

var httpEcho = mcp.RegisterMethod(mcp.Method{Name: "echo/say", Direction: mcp.ClientToServer,
	Extension: "com.example/echo", Retry: mcp.RetrySafe})

// TestExtensionOverHTTP calls an extension's method over Streamable HTTP in
// both eras and HTTP+SSE, and checks that 2026-07-28 refuses a client that
// did not declare the extension with -32021 and HTTP 400, as the
// specification asks.
func TestExtensionOverHTTP(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "echo", Version: "1"}, nil)
	srv.AddExtension(mcpserver.ServerExtension{ID: "com.example/echo", Methods: map[string]mcpserver.ExtensionHandler{
		httpEcho.Name: func(ctx context.Context, params json.RawMessage) (any, error) {
			var p struct{ Text string }
			json.Unmarshal(params, &p)
			return map[string]string{"said": p.Text}, nil
		},
	}})
	hs := httptest.NewServer(mcphttp.NewHandler(srv, nil))
	defer hs.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts mcphttpclient.Options
	}{
		{"2026-07-28", mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20260728}}},
		{"streamable 2025-11-25", mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}}},
		{"sse", mcphttpclient.Options{Transport: "sse"}},
	} {
		tc.opts.MCP.Extensions = []mcp.Extension{{ID: "com.example/echo"}}
		c, err := mcphttpclient.Connect(ctx, hs.URL, &tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var res struct{ Said string }
		if err := c.CallExtension(ctx, httpEcho.Name, map[string]string{"text": "hi"}, &res); err != nil || res.Said != "hi" {
			t.Errorf("%s: CallExtension = %+v, %v", tc.name, res, err)
		}
		c.Close()
	}

	body := `{"jsonrpc":"2.0","id":1,"method":"echo/say","params":{"text":"hi","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Method", "echo/say")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	const want = `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Server requires the com.example/echo extension for this request","data":{"requiredCapabilities":{"extensions":{"com.example/echo":{}}}}}}`
	if resp.StatusCode != http.StatusBadRequest || strings.TrimSpace(string(got)) != want {
		t.Errorf("undeclared over HTTP: %d %s\nwant 400 %s", resp.StatusCode, got, want)
	}
}
