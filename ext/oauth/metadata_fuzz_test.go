package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// docTransport answers every GET with one document.
type docTransport struct {
	status int
	body   string
}

func (d docTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.WriteHeader(d.status)
	rec.WriteString(d.body)
	return rec.Result(), nil
}

// FuzzResourceMetadata: any Protected Resource Metadata document (RFC
// 9728) is read without a panic, and one that is taken names an
// authorization server and a resource covering the MCP server's URL; a
// document for another resource is never taken. Seeds in
// testdata/fuzz/FuzzResourceMetadata.
func FuzzResourceMetadata(f *testing.F) {
	f.Add(`{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["notes.read"]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		a, _ := New(Config{HTTPClient: &http.Client{Transport: docTransport{200, doc}}})
		server, _ := url.Parse("https://mcp.example.com/mcp")
		md, err := a.discoverResource(context.Background(), server, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
		if err != nil || md == nil {
			return
		}
		if len(md.AuthorizationServers) == 0 || !resourceCovers(md.Resource, server) {
			t.Fatalf("taken: %+v, for %s", md, server)
		}
		r, err := url.Parse(md.Resource)
		if err != nil || !strings.EqualFold(r.Host, "mcp.example.com") {
			t.Fatalf("taken a document for %q", md.Resource)
		}
	})
}

// FuzzServerMetadata: any authorization server metadata document (RFC
// 8414, OpenID Connect Discovery) is read without a panic, and one that
// is taken names exactly the issuer asked for and a token endpoint.
// Seeds in testdata/fuzz/FuzzServerMetadata.
func FuzzServerMetadata(f *testing.F) {
	f.Add(`{"issuer":"https://auth.example.com","authorization_endpoint":"https://auth.example.com/authorize","token_endpoint":"https://auth.example.com/token","code_challenge_methods_supported":["S256"]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		a, _ := New(Config{HTTPClient: &http.Client{Transport: docTransport{200, doc}}})
		md, err := a.discoverServer(context.Background(), "https://auth.example.com", false)
		if err != nil {
			return
		}
		if md.Issuer != "https://auth.example.com" || md.TokenEndpoint == "" {
			t.Fatalf("taken: %+v", md)
		}
	})
}
