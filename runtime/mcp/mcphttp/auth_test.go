package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

const testMetadataURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

// testVerify accepts the tokens its switch names.
func testVerify(ctx context.Context, token string, r *http.Request) (*TokenInfo, error) {
	if r == nil || ctx == nil {
		return nil, errors.New("no request")
	}
	switch token {
	case "alice":
		return &TokenInfo{Subject: "alice", Scopes: []string{"mcp:write", "mcp:read"}, Expiry: time.Now().Add(time.Hour)}, nil
	case "bob":
		return &TokenInfo{Subject: "bob", Scopes: []string{"mcp:read", "mcp:write"}}, nil
	case "expired":
		return &TokenInfo{Subject: "alice", Scopes: []string{"mcp:read", "mcp:write"}, Expiry: time.Now().Add(-time.Second)}, nil
	case "narrow":
		return &TokenInfo{Subject: "alice", Scopes: []string{"mcp:read"}}, nil
	case "needs-admin":
		return nil, &ScopeError{Required: []string{"mcp:read", "admin"}}
	case "wrapped-scope":
		return nil, errors.Join(errors.New("policy"), &ScopeError{})
	case "nil-info":
		return nil, nil
	}
	return nil, ErrInvalidToken
}

func testAuth() *Auth {
	return &Auth{Verify: testVerify, ResourceMetadataURL: testMetadataURL, Scopes: []string{"mcp:read", "mcp:write"}}
}

func TestAuth(t *testing.T) {
	rpctest.CheckLeaks(t)
	ts := guardServer(t, Options{Auth: testAuth()})
	noScopes := guardServer(t, Options{Auth: &Auth{Verify: testVerify, ResourceMetadataURL: testMetadataURL}})
	noMetadata := guardServer(t, Options{Auth: &Auth{Verify: testVerify}})

	const (
		challenge = `Bearer resource_metadata="` + testMetadataURL + `", scope="mcp:read mcp:write"`
		invalid   = `Bearer error="invalid_token", resource_metadata="` + testMetadataURL + `", scope="mcp:read mcp:write"`
		scope     = `Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="` + testMetadataURL + `"`
	)
	for _, tc := range []struct {
		name    string
		ts      *httptest.Server
		auth    []string // Authorization header values
		query   string
		status  int
		wwwAuth string
		subject string
	}{
		{name: "good", ts: ts, auth: []string{"Bearer alice"}, status: 204, subject: "alice"},
		{name: "scheme in lower case", ts: ts, auth: []string{"bearer bob"}, status: 204, subject: "bob"},
		{name: "no token", ts: ts, status: 401, wwwAuth: challenge},
		{name: "token in the query is ignored", ts: ts, query: "?access_token=alice", status: 401, wwwAuth: challenge},
		{name: "basic", ts: ts, auth: []string{"Basic YWxpY2U6eA=="}, status: 401, wwwAuth: challenge},
		{name: "empty bearer", ts: ts, auth: []string{"Bearer "}, status: 401, wwwAuth: challenge},
		{name: "bad token", ts: ts, auth: []string{"Bearer mallory"}, status: 401, wwwAuth: invalid},
		{name: "no info", ts: ts, auth: []string{"Bearer nil-info"}, status: 401, wwwAuth: invalid},
		// Verify alone decides on expiry, with its own leeway: the
		// handler does not refuse what it accepted.
		{name: "expiry is the verifier's", ts: ts, auth: []string{"Bearer expired"}, status: 204, subject: "alice"},
		{name: "missing scope", ts: ts, auth: []string{"Bearer narrow"}, status: 403, wwwAuth: scope},
		{name: "scope error", ts: ts, auth: []string{"Bearer needs-admin"}, status: 403,
			wwwAuth: `Bearer error="insufficient_scope", scope="mcp:read admin", resource_metadata="` + testMetadataURL + `"`},
		{name: "wrapped scope error", ts: ts, auth: []string{"Bearer wrapped-scope"}, status: 403, wwwAuth: scope},
		{name: "two headers", ts: ts, auth: []string{"Bearer alice", "Bearer bob"}, status: 400,
			wwwAuth: `Bearer error="invalid_request", resource_metadata="` + testMetadataURL + `", scope="mcp:read mcp:write"`},
		{name: "no scopes: none named", ts: noScopes, status: 401, wwwAuth: `Bearer resource_metadata="` + testMetadataURL + `"`},
		{name: "no scopes: any token", ts: noScopes, auth: []string{"Bearer narrow"}, status: 204, subject: "alice"},
		{name: "no metadata URL", ts: noMetadata, auth: []string{"Bearer mallory"}, status: 401, wwwAuth: `Bearer error="invalid_token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, tc.ts.URL+tc.query, strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header["Authorization"] = tc.auth
			resp, body := roundTrip(t, tc.ts, req)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != tc.wwwAuth {
				t.Errorf("WWW-Authenticate\n%s\nwant\n%s", got, tc.wwwAuth)
			}
			if tc.status == 204 {
				if got := resp.Header.Get("X-Subject"); got != tc.subject {
					t.Errorf("subject %q, want %q", got, tc.subject)
				}
				return
			}
			wantErrorBody(t, resp, body, -32600, "")
		})
	}
}

func TestAuthChallengeQuoting(t *testing.T) {
	a := &Auth{ResourceMetadataURL: `https://x.example/a"b\c`}
	rec := httptest.NewRecorder()
	a.challenge(rec, httptest.NewRequest("POST", "/", nil), http.StatusUnauthorized, "", "", "m", nil)
	want := `Bearer resource_metadata="https://x.example/a\"b\\c"`
	if got := rec.Header().Get("WWW-Authenticate"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestAuthNoVerifier(t *testing.T) {
	h := NewHandler(newTestServer(), &Options{Auth: &Auth{}})
	header := http.Header{"Authorization": {"Bearer alice"}}
	if got := guardDirect(h, nil, "localhost", header, false); got != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", got)
	}
}

func TestScopeError(t *testing.T) {
	err := error(&ScopeError{Required: []string{"a", "b"}})
	if got, want := err.Error(), "mcphttp: insufficient scope: requires a b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTokenInfoFromContext(t *testing.T) {
	if TokenInfoFromContext(context.Background()) != nil {
		t.Error("a bare context has a TokenInfo")
	}
	ti := &TokenInfo{Subject: "s"}
	if got := TokenInfoFromContext(withTokenInfo(context.Background(), ti, false)); got != ti {
		t.Errorf("got %v, want %v", got, ti)
	}
	if ctx := context.Background(); withTokenInfo(ctx, nil, false) != ctx {
		t.Error("withTokenInfo(ctx, nil) is not ctx")
	}
}

func TestProtectedResourceMetadataHandler(t *testing.T) {
	rpctest.CheckLeaks(t)
	ts := httptest.NewServer(ProtectedResourceMetadataHandler(ProtectedResourceMetadata{
		Resource:               "https://mcp.example.com/mcp",
		AuthorizationServers:   []string{"https://auth.example.com"},
		ScopesSupported:        []string{"mcp:read", "mcp:write"},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Example",
	}))
	t.Cleanup(ts.Close)
	const want = `{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],` +
		`"scopes_supported":["mcp:read","mcp:write"],"bearer_methods_supported":["header"],"resource_name":"Example"}`

	for _, tc := range []struct {
		method string
		status int
		body   string
	}{
		{http.MethodGet, 200, want + "\n"},
		{http.MethodHead, 200, ""},
		{http.MethodOptions, 204, ""},
		{http.MethodPost, 405, ""},
		{http.MethodDelete, 405, ""},
	} {
		req, _ := http.NewRequest(tc.method, ts.URL, nil)
		req.Header.Set("Origin", "https://app.example.com")
		req.Header.Set("Access-Control-Request-Headers", "mcp-protocol-version")
		resp, body := roundTrip(t, ts, req)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", tc.method, resp.StatusCode, tc.status)
		}
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", tc.method, got)
		}
		switch tc.status {
		case 200:
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", tc.method, ct)
			}
			if string(body) != tc.body {
				t.Errorf("%s: body\n%s\nwant\n%s", tc.method, body, tc.body)
			}
		case 204:
			if got := resp.Header.Get("Access-Control-Allow-Headers"); got != "mcp-protocol-version" {
				t.Errorf("preflight: Access-Control-Allow-Headers %q", got)
			}
		case 405:
			if got := resp.Header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
				t.Errorf("%s: Allow %q", tc.method, got)
			}
			wantErrorBody(t, resp, body, -32600, "Method Not Allowed")
		}
	}
}

func TestProtectedResourceMetadataHandlerPanics(t *testing.T) {
	for _, md := range []ProtectedResourceMetadata{
		{AuthorizationServers: []string{"https://auth.example.com"}},
		{Resource: "https://mcp.example.com/mcp"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic for %+v", md)
				}
			}()
			ProtectedResourceMetadataHandler(md)
		}()
	}
}

// An MCP endpoint that requires a bearer token, and the metadata document
// that tells clients where to get one.
func ExampleProtectedResourceMetadataHandler() {
	srv := mcpserver.New(mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	h := NewHandler(srv, &Options{Auth: &Auth{
		Verify: func(ctx context.Context, token string, r *http.Request) (*TokenInfo, error) {
			// Check the token (signature, issuer, audience
			// "https://mcp.example.com/mcp", expiry), or introspect it.
			return nil, ErrInvalidToken
		},
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		Scopes:              []string{"files:read"},
	}})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/.well-known/oauth-protected-resource/mcp", ProtectedResourceMetadataHandler(ProtectedResourceMetadata{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
		ScopesSupported:      []string{"files:read"},
	}))
	_ = &http.Server{Addr: "127.0.0.1:8080", Handler: mux}
}

// TestAuthDPoP: with DPoPAlgorithms the handler takes the DPoP scheme,
// offers both schemes to a request without credentials, answers refusals
// in the scheme the request used, and answers a verifier's ChallengeError
// as it asks (RFC 9449 §7.1, §9).
func TestAuthDPoP(t *testing.T) {
	rpctest.CheckLeaks(t)
	var got []string // tokens Verify saw, with their scheme
	verify := func(ctx context.Context, token string, r *http.Request) (*TokenInfo, error) {
		got = append(got, r.Header.Get("Authorization"))
		switch token {
		case "bound":
			return &TokenInfo{Subject: "alice", Scopes: []string{"mcp:read", "mcp:write"}}, nil
		case "narrow":
			return &TokenInfo{Subject: "alice", Scopes: []string{"mcp:read"}}, nil
		case "stale-nonce":
			return nil, &ChallengeError{Scheme: "DPoP", Code: "use_dpop_nonce", Description: "a new nonce is needed",
				Header: http.Header{"Dpop-Nonce": {"n-2"}}, Err: ErrInvalidToken}
		case "bad-proof":
			return nil, &ChallengeError{Code: "invalid_dpop_proof", Description: `htu is not "this" URL`}
		case "two-proofs":
			return nil, &ChallengeError{Code: "invalid_request", Description: "more than one DPoP header"}
		}
		return nil, ErrInvalidToken
	}
	auth := &Auth{Verify: verify, ResourceMetadataURL: testMetadataURL, Scopes: []string{"mcp:read", "mcp:write"}, DPoPAlgorithms: []string{"ES256", "EdDSA"}}
	ts := guardServer(t, Options{Auth: auth})
	bearerOnly := guardServer(t, Options{Auth: &Auth{Verify: verify, ResourceMetadataURL: testMetadataURL}})
	const (
		md    = `resource_metadata="` + testMetadataURL + `"`
		algs  = `algs="ES256 EdDSA"`
		scope = `scope="mcp:read mcp:write"`
	)
	for _, tc := range []struct {
		name    string
		ts      *httptest.Server
		auth    string
		status  int
		wwwAuth []string
		nonce   string
	}{
		{"no credentials: both schemes", ts, "", 401, []string{`Bearer ` + md + `, ` + scope, `DPoP ` + md + `, ` + scope + `, ` + algs}, ""},
		{"DPoP token", ts, "DPoP bound", 204, nil, ""},
		{"scheme in lower case", ts, "dpop bound", 204, nil, ""},
		{"bearer still taken", ts, "Bearer bound", 204, nil, ""},
		{"invalid token, in the scheme used", ts, "DPoP mallory", 401, []string{`DPoP error="invalid_token", ` + md + `, ` + scope + `, ` + algs}, ""},
		{"invalid bearer token", ts, "Bearer mallory", 401, []string{`Bearer error="invalid_token", ` + md + `, ` + scope}, ""},
		{"insufficient scope", ts, "DPoP narrow", 403, []string{`DPoP error="insufficient_scope", ` + scope + `, ` + md + `, ` + algs}, ""},
		{"nonce wanted", ts, "DPoP stale-nonce", 401, []string{`DPoP error="use_dpop_nonce", error_description="a new nonce is needed", ` + md + `, ` + scope + `, ` + algs}, "n-2"},
		{"bad proof", ts, "DPoP bad-proof", 401, []string{`DPoP error="invalid_dpop_proof", error_description="htu is not \"this\" URL", ` + md + `, ` + scope + `, ` + algs}, ""},
		{"malformed request", ts, "DPoP two-proofs", 400, []string{`DPoP error="invalid_request", error_description="more than one DPoP header", ` + md + `, ` + scope + `, ` + algs}, ""},
		{"DPoP not taken without DPoPAlgorithms", bearerOnly, "DPoP bound", 401, []string{`Bearer ` + md}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			req, _ := http.NewRequest(http.MethodPost, tc.ts.URL, strings.NewReader(`{}`))
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, body := roundTrip(t, tc.ts, req)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, body)
			}
			if www := resp.Header.Values("WWW-Authenticate"); !slices.Equal(www, tc.wwwAuth) {
				t.Errorf("WWW-Authenticate\n%q\nwant\n%q", www, tc.wwwAuth)
			}
			if n := resp.Header.Get("DPoP-Nonce"); n != tc.nonce {
				t.Errorf("DPoP-Nonce %q, want %q", n, tc.nonce)
			}
			if tc.status != 204 {
				wantErrorBody(t, resp, body, -32600, "")
			}
			if tc.ts == bearerOnly && len(got) != 0 {
				t.Errorf("Verify saw %q: a DPoP token reached a verifier that does not take DPoP", got)
			}
		})
	}
}

func TestChallengeError(t *testing.T) {
	err := error(&ChallengeError{Code: "invalid_dpop_proof", Description: "bad htm", Err: ErrInvalidToken})
	if got, want := err.Error(), "mcphttp: invalid_dpop_proof: bad htm: mcphttp: invalid bearer token"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(err, ErrInvalidToken) {
		t.Error("the cause is not unwrapped")
	}
}
