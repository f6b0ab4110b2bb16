package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseChallenges(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://r/.well-known/x"`)
	h.Add("WWW-Authenticate", `DPoP error=use_dpop_nonce, algs="ES256", Newauth`)
	cs := parseChallenges(h)
	if len(cs) != 2 || cs[0].scheme != "Bearer" || cs[1].scheme != "DPoP" {
		t.Fatalf("got %+v", cs)
	}
	for k, want := range map[string]string{"error": "insufficient_scope", "scope": "a b", "resource_metadata": "https://r/.well-known/x"} {
		if got := cs[0].params[k]; got != want {
			t.Errorf("Bearer %s = %q, want %q", k, got, want)
		}
	}
	if cs[1].params["error"] != "use_dpop_nonce" || cs[1].params["algs"] != "ES256" {
		t.Errorf("DPoP params %v", cs[1].params)
	}
}

// fakeAS is an authorization server and a protected MCP endpoint on one
// test server: PRM at the path-inserted well-known URL, RFC 8414 metadata,
// DCR, an authorization endpoint that redirects at once, and a token
// endpoint issuing numbered tokens with refresh tokens that expire at once.
type fakeAS struct {
	ts          *httptest.Server
	mu          sync.Mutex
	paths       []string
	tokens      []url.Values // token request bodies
	iss         string       // the iss the redirect carries; "-" for none
	issOK       bool         // authorization_response_iss_parameter_supported
	issued      int
	expiresS    int
	noOffline   bool         // offline_access left out of scopes_supported
	authQueries []url.Values // authorization requests' queries
}

func newFakeAS(t *testing.T) *fakeAS {
	f := &fakeAS{issOK: true, expiresS: 3600}
	mux := http.NewServeMux()
	f.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.ts.Close)
	js := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		js(w, 200, map[string]any{"resource": f.ts.URL + "/mcp", "authorization_servers": []string{f.ts.URL}, "scopes_supported": []string{"notes"}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		js(w, 200, map[string]any{"issuer": f.ts.URL, "authorization_endpoint": f.ts.URL + "/authorize", "token_endpoint": f.ts.URL + "/token",
			"registration_endpoint": f.ts.URL + "/register", "code_challenge_methods_supported": []string{"S256"},
			"authorization_response_iss_parameter_supported": f.issOK, "scopes_supported": f.scopesSupported()})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		js(w, 201, map[string]any{"client_id": "dcr-client"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.mu.Lock()
		f.authQueries = append(f.authQueries, q)
		f.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {"c-" + q.Get("code_challenge")}, "state": {q.Get("state")}}
		f.mu.Lock()
		if f.iss != "-" {
			v.Set("iss", f.ts.URL+f.iss)
		}
		f.mu.Unlock()
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		f.mu.Lock()
		f.tokens = append(f.tokens, r.PostForm)
		f.issued++
		n, exp := f.issued, f.expiresS
		f.mu.Unlock()
		js(w, 200, map[string]any{"access_token": fmt.Sprint("at-", n), "token_type": "Bearer", "expires_in": exp, "refresh_token": fmt.Sprint("rt-", n), "scope": r.PostForm.Get("scope")})
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		want := fmt.Sprint("Bearer at-", f.issued)
		f.mu.Unlock()
		if r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+f.ts.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
			return
		}
		w.WriteHeader(204)
	})
	return f
}

func (f *fakeAS) scopesSupported() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noOffline {
		return []string{"notes"}
	}
	return []string{"notes", "offline_access"}
}

// send POSTs to the MCP endpoint through a, answering challenges the way
// mcphttp does, and returns the final status.
func (f *fakeAS) send(t *testing.T, a *Authorizer) int {
	t.Helper()
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, f.ts.URL+"/mcp", nil)
		if err := a.Authorize(req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			return resp.StatusCode
		}
		if err := a.Challenge(context.Background(), req, resp); err != nil {
			t.Fatal(err)
		}
	}
	return 401
}

// redirectBrowser follows the authorization server's redirect, as the user
// who consents does.
func redirectBrowser(ctx context.Context, authURL string) (url.Values, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, err
	}
	return loc.Query(), nil
}

// TestFlow: a 401 leads through discovery and DCR to a token (with PKCE,
// resource and offline_access); an expired token is refreshed, with the
// resource parameter, before the request goes out; a second Authorizer on
// the same Store uses the stored token without any flow.
func TestFlow(t *testing.T) {
	f := newFakeAS(t)
	store := NewMemoryStore()
	a, err := New(Config{RedirectURL: "http://127.0.0.1:1/cb", Browser: redirectBrowser, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.send(t, a); got != 204 {
		t.Fatalf("status %d", got)
	}
	want := []string{"POST /mcp", "GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-authorization-server",
		"POST /register", "GET /authorize", "POST /token", "POST /mcp"}
	if !slices.Equal(f.paths, want) {
		t.Errorf("requests %v\nwant     %v", f.paths, want)
	}
	code := f.tokens[0]
	if code.Get("grant_type") != "authorization_code" || code.Get("code_verifier") == "" || code.Get("resource") != f.ts.URL+"/mcp" || code.Get("client_id") != "dcr-client" {
		t.Errorf("token request %v", code)
	}
	if s := a.Token().Scopes; !slices.Equal(s, []string{"notes", "offline_access"}) {
		t.Errorf("scopes %v, want notes offline_access", s)
	}
	f.paths = nil
	a.mu.Lock()
	a.token.Expiry = time.Now() // expired: refreshed before the next send
	a.mu.Unlock()
	if got := f.send(t, a); got != 204 || !slices.Equal(f.paths, []string{"POST /token", "POST /mcp"}) {
		t.Errorf("after expiry: %d %v, want a refresh then the request", got, f.paths)
	}
	if r := f.tokens[1]; r.Get("grant_type") != "refresh_token" || r.Get("refresh_token") != "rt-1" || r.Get("resource") != f.ts.URL+"/mcp" {
		t.Errorf("refresh request %v", r)
	}
	f.paths = nil
	b, _ := New(Config{RedirectURL: "http://127.0.0.1:1/cb", Browser: redirectBrowser, Store: store})
	if got := f.send(t, b); got != 204 || !slices.Equal(f.paths, []string{"POST /mcp"}) {
		t.Errorf("stored token: %d %v", got, f.paths)
	}
}

// TestIssuerCheck: the RFC 9207 table of the 2026-07-28 authorization
// section, and no normalisation of iss.
func TestIssuerCheck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		supported bool
		iss       string // appended to the issuer; "-" for none
		ok        bool
	}{
		{"supported, present", true, "", true},
		{"supported, absent", true, "-", false},
		{"unsupported, present", false, "", true},
		{"unsupported, absent", false, "-", true},
		{"trailing slash", true, "/", false},
		{"other issuer", false, ".evil", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAS(t)
			f.issOK, f.iss = tc.supported, tc.iss
			a, _ := New(Config{RedirectURL: "http://127.0.0.1:1/cb", Browser: redirectBrowser})
			req, _ := http.NewRequest(http.MethodPost, f.ts.URL+"/mcp", nil)
			resp := &http.Response{StatusCode: 401, Header: http.Header{"Www-Authenticate": {`Bearer`}}}
			err := a.Challenge(context.Background(), req, resp)
			if (err == nil) != tc.ok || !tc.ok && len(f.tokens) != 0 {
				t.Errorf("err %v, %d token requests; want ok=%v and no token request when refused", err, len(f.tokens), tc.ok)
			}
		})
	}
}

// TestLoopback: the loopback helper takes the redirect the authorization
// server sends the browser to, once.
func TestLoopback(t *testing.T) {
	f := newFakeAS(t)
	lb, err := NewLoopback("127.0.0.1:0", "/callback")
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	open := func(u string) error {
		go func() { // the user's browser: follows the redirect to the loopback
			resp, err := http.Get(u)
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	a, _ := New(Config{RedirectURL: lb.RedirectURL(), Browser: lb.Browser(open)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Login(ctx, f.ts.URL+"/mcp"); err != nil {
		t.Fatal(err)
	}
	if a.Token() == nil || !strings.HasPrefix(a.Token().AccessToken, "at-") {
		t.Errorf("token %+v", a.Token())
	}
	resp, err := http.Get(lb.RedirectURL() + "?code=late")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("a redirect nobody waits for: %d, want 400", resp.StatusCode)
	}
}

func TestClientMetadataHandler(t *testing.T) {
	md := ClientMetadata{ClientID: "https://app.example.com/client.json", ClientName: "app", RedirectURIs: []string{"http://127.0.0.1:9/cb"}}
	rec := httptest.NewRecorder()
	md.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/client.json", nil))
	var got ClientMetadata
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.ClientID != md.ClientID || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %s (%v)", rec.Body, err)
	}
}
