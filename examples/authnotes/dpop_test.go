package authnotes_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
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

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/rpcgen/rpcgen/examples/authnotes"
	"github.com/rpcgen/rpcgen/ext/oauth"
	"github.com/rpcgen/rpcgen/ext/verify"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// dpopAS is an authorization server that binds its tokens to the client's
// DPoP key (RFC 9449 §5, §6): it wants a proof at its token endpoint, asks
// for a nonce of its own first (§8), and issues JWT access tokens with
// cnf.jkt, short-lived, with refresh tokens bound to the same key.
type dpopAS struct {
	ts  *httptest.Server
	key *ecdsa.PrivateKey

	mu       sync.Mutex
	codes    map[string]url.Values // authorization requests by code
	refresh  map[string]string     // refresh token -> jkt
	nonce    string
	grants   []string // grant types of the tokens issued
	unproved int      // token requests without a valid proof
}

func newDPoPAS(t *testing.T) *dpopAS {
	as := &dpopAS{codes: map[string]url.Values{}, refresh: map[string]string{}, nonce: "as-nonce-1"}
	as.key, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	mux := http.NewServeMux()
	as.ts = httptest.NewServer(mux)
	t.Cleanup(as.ts.Close)
	js := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		u := as.ts.URL
		js(w, 200, map[string]any{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
			"registration_endpoint": u + "/register", "jwks_uri": u + "/jwks", "code_challenge_methods_supported": []string{"S256"},
			"dpop_signing_alg_values_supported": []string{"ES256"}, "scopes_supported": []string{"notes.read", "notes.write"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		js(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &as.key.PublicKey, KeyID: "as", Algorithm: "ES256", Use: "sig"}}})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		js(w, 201, map[string]any{"client_id": "dpop-client"})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		code := fmt.Sprint("code-", time.Now().UnixNano())
		as.mu.Lock()
		as.codes[code] = q
		as.mu.Unlock()
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		jkt, nonce, err := as.proofKey(r)
		as.mu.Lock()
		defer as.mu.Unlock()
		if err != nil {
			as.unproved++
			js(w, 400, map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
			return
		}
		if nonce != as.nonce {
			w.Header().Set("DPoP-Nonce", as.nonce)
			js(w, 400, map[string]string{"error": "use_dpop_nonce"})
			return
		}
		var scope, resource string
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			q := as.codes[r.PostForm.Get("code")]
			delete(as.codes, r.PostForm.Get("code"))
			scope, resource = q.Get("scope"), r.PostForm.Get("resource")
		case "refresh_token":
			if as.refresh[r.PostForm.Get("refresh_token")] != jkt {
				js(w, 400, map[string]string{"error": "invalid_grant", "error_description": "the refresh token is bound to another key"})
				return
			}
			scope, resource = "notes.read notes.write", r.PostForm.Get("resource")
		}
		as.grants = append(as.grants, r.PostForm.Get("grant_type"))
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: as.key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "as"))
		at, _ := jwt.Signed(signer).Claims(map[string]any{"iss": as.ts.URL, "sub": "alice", "aud": resource, "scope": scope,
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix(), "cnf": map[string]string{"jkt": jkt}}).Serialize()
		rt := fmt.Sprint("rt-", len(as.grants))
		as.refresh[rt] = jkt
		js(w, 200, map[string]any{"access_token": at, "token_type": "DPoP", "expires_in": 3600, "refresh_token": rt, "scope": scope})
	})
	return as
}

// proofKey checks the token request's DPoP proof the way RFC 9449 §4.3
// has an authorization server do (enough of it for this test) and returns
// the thumbprint of its key and its nonce.
func (as *dpopAS) proofKey(r *http.Request) (string, string, error) {
	jws, err := jose.ParseSignedCompact(r.Header.Get("DPoP"), []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", "", err
	}
	h := jws.Signatures[0].Protected
	if h.JSONWebKey == nil || h.ExtraHeaders[jose.HeaderType] != "dpop+jwt" {
		return "", "", fmt.Errorf("no jwk, or typ %v", h.ExtraHeaders[jose.HeaderType])
	}
	payload, err := jws.Verify(h.JSONWebKey.Key)
	if err != nil {
		return "", "", err
	}
	var c struct{ HTM, HTU, Nonce string }
	json.Unmarshal(payload, &c)
	if c.HTM != "POST" || c.HTU != as.ts.URL+"/token" {
		return "", "", fmt.Errorf("htm %q htu %q", c.HTM, c.HTU)
	}
	tp, _ := h.JSONWebKey.Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(tp), c.Nonce, nil
}

// TestDPoPEndToEnd: ext/oauth's DPoP client logs in to an authorization
// server that binds tokens to its key, and calls the notes server (the
// generated tools behind ext/verify with DPoP and server nonces) over
// HTTP: every MCP request carries "Authorization: DPoP" and a fresh proof,
// the server's use_dpop_nonce is answered, a refresh stays bound to the
// key, and the token is worthless without the key: as a bearer token, or
// with a proof of another key.
func TestDPoPEndToEnd(t *testing.T) {
	as := newDPoPAS(t)
	var endpoint string
	var mu sync.Mutex
	var seen []string // Authorization schemes and DPoP headers the MCP server got
	mux := http.NewServeMux()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		seen = append(seen, scheme+" "+r.Header.Get("DPoP"))
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	defer ts.Close()
	endpoint = ts.URL + "/mcp"
	v, err := verify.NewJWT(verify.JWTConfig{Issuer: as.ts.URL, Audience: endpoint, DPoP: &verify.DPoPConfig{Nonce: true}})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(mcp.Implementation{Name: "authnotes", Version: "1.0.0"}, nil)
	srv.AddTools(authnotes.NotesTools(&authnotes.Store{})...)
	h := mcphttp.NewHandler(srv, &mcphttp.Options{Auth: &mcphttp.Auth{Verify: v.Verify, DPoPAlgorithms: v.DPoPAlgorithms()}})
	defer h.Close()
	mux.Handle("/mcp", h)
	mux.Handle("/.well-known/oauth-protected-resource/mcp", mcphttp.ProtectedResourceMetadataHandler(mcphttp.ProtectedResourceMetadata{
		Resource: endpoint, AuthorizationServers: []string{as.ts.URL}, ScopesSupported: srv.Scopes()}))

	follow := func(ctx context.Context, authURL string) (url.Values, error) {
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
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	store := oauth.NewMemoryStore()
	a, err := oauth.New(oauth.Config{DPoP: true, DPoPKey: key, Store: store, RedirectURL: "http://127.0.0.1:1/callback", Browser: follow})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, version := range []string{"", mcp.Version20251125} {
		c, err := mcphttpclient.Connect(ctx, endpoint, &mcphttpclient.Options{Authorizer: a, MCP: mcpclient.Options{ProtocolVersion: version}})
		if err != nil {
			t.Fatalf("version %q: %v", version, err)
		}
		notes := authnotes.NewNotesMCPClient(c)
		if _, err := notes.AddNote(ctx, "bound to a key "+version); err != nil {
			t.Fatalf("version %q: add: %v", version, err)
		}
		me, err := notes.WhoAmI(ctx)
		if err != nil || me.Subject != "alice" {
			t.Fatalf("version %q: whoami %+v, %v", version, me, err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("version %q: close: %v", version, err)
		}
	}
	if tok := a.Token(); tok == nil || tok.TokenType != "DPoP" {
		t.Fatalf("token %+v, want a DPoP one", tok)
	}
	mu.Lock()
	proofs := map[string]bool{}
	for _, s := range seen {
		scheme, proof, _ := strings.Cut(s, " ")
		if scheme == "" {
			continue // the first request, before any token
		}
		if scheme != "DPoP" || proof == "" {
			t.Errorf("an MCP request with %q and proof %q", scheme, proof)
		}
		if proofs[proof] {
			t.Error("a proof sent twice")
		}
		proofs[proof] = true
	}
	mu.Unlock()
	if len(proofs) < 4 {
		t.Errorf("%d proofs seen, want one per request", len(proofs))
	}

	// A refresh is bound to the same key, and the new token works: a new
	// Authorizer with the key and the stored, expired token refreshes it.
	tok := a.Token()
	stale := *tok
	stale.Expiry = time.Now()
	store.SetToken(ctx, endpoint, &stale)
	b, err := oauth.New(oauth.Config{DPoP: true, DPoPKey: key, Store: store, RedirectURL: "http://127.0.0.1:1/callback", Browser: follow})
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcphttpclient.Connect(ctx, endpoint, &mcphttpclient.Options{Authorizer: b})
	if err != nil {
		t.Fatal(err)
	}
	if list, err := authnotes.NewNotesMCPClient(c).ListNotes(ctx); err != nil || len(list) != 2 {
		t.Errorf("after the refresh: %v, %v; want the two notes", list, err)
	}
	c.Close()
	as.mu.Lock()
	if as.unproved != 0 || !slices.Equal(as.grants, []string{"authorization_code", "refresh_token"}) {
		t.Errorf("token requests: grants %v, %d without a valid proof; want a login and a refresh, all with proofs", as.grants, as.unproved)
	}
	as.mu.Unlock()
	if b.Token().AccessToken == tok.AccessToken {
		t.Error("the token was not refreshed")
	}

	// Without the key the token is worthless.
	call := func(scheme string, proof string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		req.Header.Set("Authorization", scheme+" "+tok.AccessToken)
		if proof != "" {
			req.Header.Set("DPoP", proof)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := call("Bearer", ""); resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("the DPoP-bound token as a bearer token: %d %q", resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
	}
	// A thief's proof: its own key, the stolen token's hash.
	thief, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: thief},
		(&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	sum := sha256.Sum256([]byte(tok.AccessToken))
	claims, _ := json.Marshal(map[string]any{"jti": "stolen", "htm": "POST", "htu": endpoint, "iat": time.Now().Unix(),
		"ath": base64.RawURLEncoding.EncodeToString(sum[:])})
	obj, _ := signer.Sign(claims)
	stolen, _ := obj.CompactSerialize()
	if resp := call("DPoP", stolen); resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `DPoP error="invalid_token"`) {
		t.Errorf("the token with a proof of another key: %d %q", resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
	}
	if resp := call("DPoP", ""); resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `DPoP error="invalid_dpop_proof"`) {
		t.Errorf("the token without a proof: %d %q", resp.StatusCode, resp.Header.Values("WWW-Authenticate"))
	}
}
