package verify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestBadTokens sends each kind of bad token to an MCP server behind the
// JWT verifier, in a legacy session and as 2026-07-28 requests: each gets
// 401 with an invalid_token challenge naming the metadata document (403
// insufficient_scope naming the scope for a token without the tool's
// scope), and the tool never runs.
func TestBadTokens(t *testing.T) {
	is := newTestIssuer(t)
	var mcpURL string
	v, err := NewJWT(JWTConfig{Issuer: is.ts.URL, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	srv := mcpserver.New(mcp.Implementation{Name: "notes", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "add_note", Scopes: []string{"notes.write"}, Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		runs.Add(1)
		return json.RawMessage(`{}`), nil
	}})
	const prm = resource + "-metadata"
	h := mcphttp.NewHandler(srv, &mcphttp.Options{Auth: &mcphttp.Auth{Verify: v.Verify, ResourceMetadataURL: prm}})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	mcpURL = ts.URL

	claims := func(k string, val any) string {
		c := is.claims(resource, "notes.read notes.write")
		c[k] = val
		return sign(t, is.key("k1"), "k1", jose.ES256, c)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	good := claims("sub", "alice")
	bad := map[string]string{
		"none":           "",
		"expired":        claims("exp", time.Now().Add(-time.Minute).Unix()),
		"wrong audience": claims("aud", "https://other.example.com"),
		"wrong issuer":   claims("iss", "https://evil.example.com"),
		"bad signature":  sign(t, other, "k1", jose.ES256, is.claims(resource, "notes.write")),
		"other resource": claims("aud", "https://mcp.example.com/other-mcp"),
	}
	noScope := claims("scope", "notes.read")

	post := func(token, body string, hdr ...string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := post(good, initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize with a good token: %d", resp.StatusCode)
	}
	post(good, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
	legacyCall := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_note","arguments":{}}}`
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	modernCall := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_note","arguments":{},` + meta + `}}`
	eras := []struct {
		name string
		send func(token string) *http.Response
	}{
		{"legacy", func(tok string) *http.Response {
			return post(tok, legacyCall, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
		}},
		{"2026-07-28", func(tok string) *http.Response {
			return post(tok, modernCall, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "add_note")
		}},
	}
	for _, era := range eras {
		for name, tok := range bad {
			resp := era.send(tok)
			www := resp.Header.Get("WWW-Authenticate")
			wantErr := name != "none"
			if resp.StatusCode != 401 || !strings.Contains(www, `resource_metadata="`+prm+`"`) || strings.Contains(www, `error="invalid_token"`) != wantErr {
				t.Errorf("%s, %s: %d %q; want 401 and a challenge (invalid_token: %v)", era.name, name, resp.StatusCode, www, wantErr)
			}
		}
		resp := era.send(noScope)
		if www := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 403 || !strings.Contains(www, `error="insufficient_scope"`) || !strings.Contains(www, `scope="notes.write"`) {
			t.Errorf("%s, missing scope: %d %q; want 403 insufficient_scope naming notes.write", era.name, resp.StatusCode, www)
		}
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times for bad tokens", n)
	}
	for _, era := range eras {
		if resp := era.send(good); resp.StatusCode != 200 {
			t.Errorf("%s, good token: %d", era.name, resp.StatusCode)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("the tool ran %d times for two good calls", n)
	}
}

// TestLeewayOverHTTP: the 30-second leeway docs/auth.md promises holds
// behind mcphttp.Auth, which used to refuse a token the verifier had
// accepted as soon as its exp had passed; beyond the leeway the token is
// refused.
func TestLeewayOverHTTP(t *testing.T) {
	is := newTestIssuer(t)
	v, err := NewJWT(JWTConfig{Issuer: is.ts.URL, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(mcp.Implementation{Name: "notes", Version: "1"}, nil)
	h := mcphttp.NewHandler(srv, &mcphttp.Options{Auth: &mcphttp.Auth{Verify: v.Verify}})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()
	for _, tc := range []struct {
		expiredFor time.Duration
		status     int
	}{{5 * time.Second, 200}, {25 * time.Second, 200}, {40 * time.Second, 401}} {
		c := is.claims(resource, "")
		c["exp"] = time.Now().Add(-tc.expiredFor).Unix()
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		req.Header.Set("Authorization", "Bearer "+sign(t, is.key("k1"), "k1", jose.ES256, c))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("a token expired %s ago: %d, want %d", tc.expiredFor, resp.StatusCode, tc.status)
		}
	}
}
