package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/storage"
	"github.com/ory/fosite/token/jwt"
)

// clients is fosite's memory store with clients that Dynamic Client
// Registration adds while it serves.
type clients struct {
	*storage.MemoryStore
	mu   sync.RWMutex
	byID map[string]fosite.Client
}

func (c *clients) GetClient(_ context.Context, id string) (fosite.Client, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if cl, ok := c.byID[id]; ok {
		return cl, nil
	}
	return nil, fosite.ErrNotFound
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.metadata)
	mux.HandleFunc("GET /jwks", s.jwks)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.loginPage)
	mux.HandleFunc("POST /authorize", s.login)
	mux.HandleFunc("POST /token", s.token)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *server) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer":                                         s.issuer,
		"authorization_endpoint":                         s.issuer + "/authorize",
		"token_endpoint":                                 s.issuer + "/token",
		"registration_endpoint":                          s.issuer + "/register",
		"jwks_uri":                                       s.issuer + "/jwks",
		"scopes_supported":                               s.scopes,
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"authorization_response_iss_parameter_supported": true,
	})
}

func (s *server) jwks(w http.ResponseWriter, r *http.Request) {
	pub := s.key.PublicKey
	b64 := base64.RawURLEncoding.EncodeToString
	writeJSON(w, 200, map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "use": "sig", "alg": "RS256", "kid": "k1",
		"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes()),
	}}})
}

// register takes a public client's registration (RFC 7591).
func (s *server) register(w http.ResponseWriter, r *http.Request) {
	var md struct {
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		GrantTypes   []string `json:"grant_types"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata", "error_description": "a JSON document with redirect_uris is required"})
		return
	}
	if md.AuthMethod != "" && md.AuthMethod != "none" {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata", "error_description": "only public clients (none) are registered here"})
		return
	}
	for _, u := range md.RedirectURIs {
		if p, err := url.Parse(u); err != nil || p.Scheme == "" || p.Fragment != "" {
			writeJSON(w, 400, map[string]string{"error": "invalid_redirect_uri"})
			return
		}
	}
	if md.GrantTypes == nil {
		md.GrantTypes = []string{"authorization_code"}
	}
	id := randomID()
	cl := &fosite.DefaultClient{ID: id, Public: true, RedirectURIs: md.RedirectURIs, GrantTypes: md.GrantTypes,
		ResponseTypes: []string{"code"}, Scopes: s.scopes}
	s.store.mu.Lock()
	s.store.byID[id] = cl
	s.store.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": id, "client_id_issued_at": time.Now().Unix(), "client_name": md.ClientName,
		"redirect_uris": md.RedirectURIs, "grant_types": md.GrantTypes, "token_endpoint_auth_method": "none"})
}

var loginForm = template.Must(template.New("login").Parse(`<!doctype html>
<title>Log in</title>
<form method="post" action="/authorize">
<input type="hidden" name="request" value="{{.Request}}">
<p><label>User <input name="username" autocomplete="username"></label>
<p><label>Password <input type="password" name="password" autocomplete="current-password"></label>
<p>{{.Client}} asks for:
{{range .Scopes}}<label><input type="checkbox" name="consent" value="{{.}}" checked> {{.}}</label>
{{end}}<p><button>Allow</button>
</form>
`))

// loginPage checks the authorization request and shows the login and
// consent form, which carries the request back.
func (s *server) loginPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ar, err := s.provider.NewAuthorizeRequest(ctx, r)
	if err == nil {
		err = checkResource(r.Form.Get("resource"))
	}
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	loginForm.Execute(w, map[string]any{"Request": r.URL.RawQuery, "Client": ar.GetClient().GetID(), "Scopes": []string(ar.GetRequestedScopes())})
}

// checkResource accepts the resource indicator of an authorization request
// (RFC 8707 §2): an absolute URI without a fragment.
func checkResource(res string) error {
	u, err := url.Parse(res)
	if res == "" || err != nil || !u.IsAbs() || u.Fragment != "" {
		return fosite.ErrInvalidRequest.WithHint("The resource parameter must name the MCP server (RFC 8707).")
	}
	return nil
}

// login checks the user's password and consent, and answers the
// authorization request with a code for the scopes consented to and the
// resource as the audience.
func (s *server) login(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", 400)
		return
	}
	user, pass, consent := r.PostForm.Get("username"), r.PostForm.Get("password"), r.PostForm["consent"]
	// The authorization request itself is the one the form carried.
	q, err := url.ParseQuery(r.PostForm.Get("request"))
	if err != nil {
		http.Error(w, "bad request", 400)
		return
	}
	get := r.Clone(ctx)
	get.Method, get.Form, get.PostForm, get.URL.RawQuery = http.MethodGet, nil, nil, q.Encode()
	ar, err := s.provider.NewAuthorizeRequest(ctx, get)
	if err == nil {
		err = checkResource(q.Get("resource"))
	}
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	if want, ok := s.users[user]; !ok || want != pass {
		s.provider.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("Unknown user or wrong password."))
		return
	}
	for _, sc := range ar.GetRequestedScopes() {
		if slices.Contains(consent, sc) {
			ar.GrantScope(sc)
		}
	}
	ar.GrantAudience(q.Get("resource"))
	session := &oauth2.JWTSession{
		JWTClaims: &jwt.JWTClaims{Subject: user, Extra: map[string]any{"client_id": ar.GetClient().GetID()}},
		JWTHeader: &jwt.Headers{Extra: map[string]any{"kid": "k1", "typ": "at+jwt"}},
		Subject:   user,
	}
	resp, err := s.provider.NewAuthorizeResponse(ctx, ar, session)
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, w, ar, err)
		return
	}
	resp.AddParameter("iss", s.issuer)
	s.provider.WriteAuthorizeResponse(ctx, w, ar, resp)
}

func (s *server) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ar, err := s.provider.NewAccessRequest(ctx, r, &oauth2.JWTSession{})
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	resp, err := s.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		s.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	s.provider.WriteAccessResponse(ctx, w, ar, resp)
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return strings.ToLower(base64.RawURLEncoding.EncodeToString(b))
}
