package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// Authorizer is the OAuth 2.1 client of one MCP server: set it as
// mcphttpclient.Options.Authorizer. It is safe for concurrent use; the flows
// it runs are serialised.
type Authorizer struct {
	cfg   Config
	store Store
	http  *http.Client
	log   *slog.Logger
	dpop  *dpopKey // nil without Config.DPoP

	mu       sync.Mutex // held through a flow
	resource string     // canonical URL of the server, set by the first challenge
	token    *Token     // the current token, nil before the first
	server   *serverMetadata
	issuer   string // the issuer server was discovered for
	meta     *resourceMetadata
	nonces   map[string]string // DPoP nonces by origin, the token endpoint's included
}

var _ mcphttpclient.Authorizer = (*Authorizer)(nil)

// New returns an Authorizer configured by cfg.
func New(cfg Config) (*Authorizer, error) {
	a := &Authorizer{cfg: cfg, store: cfg.Store, http: cfg.HTTPClient, log: cfg.Logger, nonces: map[string]string{}}
	if a.store == nil {
		a.store = NewMemoryStore()
	}
	if a.http == nil {
		a.http = http.DefaultClient
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if cfg.ClientMetadataURL != "" {
		u, err := url.Parse(cfg.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || strings.TrimPrefix(u.Path, "/") == "" || u.Fragment != "" {
			return nil, fmt.Errorf("oauth: ClientMetadataURL %q must be an https URL with a path", cfg.ClientMetadataURL)
		}
	}
	if a.grant() == grantAuthorizationCode && cfg.Browser != nil && cfg.RedirectURL == "" {
		return nil, errors.New("oauth: Config.Browser needs a Config.RedirectURL")
	}
	if cfg.DPoP {
		key := cfg.DPoPKey
		if key == nil {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return nil, err
			}
			key = k
		}
		d, err := newDPoPKey(key)
		if err != nil {
			return nil, err
		}
		a.dpop = d
	}
	return a, nil
}

type grantKind int

const (
	grantAuthorizationCode grantKind = iota
	grantClientCredentials
	grantJWTBearer
)

func (a *Authorizer) grant() grantKind {
	switch {
	case a.cfg.Assertion != nil:
		return grantJWTBearer
	case a.cfg.ClientCredentials:
		return grantClientCredentials
	}
	return grantAuthorizationCode
}

// Token returns the current access token, or nil before there is one.
func (a *Authorizer) Token() *Token {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token == nil {
		return nil
	}
	t := *a.token
	return &t
}

// Authorize implements mcphttpclient.Authorizer: it sets req's Authorization
// header (Bearer, or DPoP with a proof) from the current token, refreshing
// it first when it has expired.
func (a *Authorizer) Authorize(req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	ctx := req.Context()
	if a.resource == "" {
		a.resource = canonicalResource(req.URL)
	}
	if a.token == nil {
		t, err := a.store.Token(ctx, a.resource)
		if err != nil {
			return err
		}
		a.token = t
	}
	if a.token == nil {
		return nil
	}
	if a.token.expired(time.Now()) && a.token.RefreshToken != "" {
		if err := a.refresh(ctx); err != nil {
			// Sent as it is: the server's 401 leads to a new authorization.
			a.log.Debug("oauth: refresh failed", "err", err)
		}
	}
	return a.setCredentials(req)
}

// setCredentials puts the current token on req.
func (a *Authorizer) setCredentials(req *http.Request) error {
	t := a.token
	if strings.EqualFold(t.TokenType, "DPoP") && a.dpop != nil {
		proof, err := a.dpop.proof(req.Method, req.URL, t.AccessToken, a.nonces[origin(req.URL)])
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "DPoP "+t.AccessToken)
		req.Header.Set("DPoP", proof)
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+t.AccessToken)
	return nil
}

// Challenge implements mcphttpclient.Authorizer: it answers the server's 401 or
// 403 by getting the credentials it asks for.
func (a *Authorizer) Challenge(ctx context.Context, req *http.Request, resp *http.Response) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	cs := parseChallenges(resp.Header)
	if a.resource == "" {
		a.resource = canonicalResource(req.URL)
	}
	if n := resp.Header.Get("DPoP-Nonce"); n != "" && a.dpop != nil {
		a.nonces[origin(req.URL)] = n
		if challengeParam(cs, "error") == "use_dpop_nonce" {
			return nil
		}
	}
	sent := req.Header.Get("Authorization")
	if a.token != nil && sent != "" && !strings.HasSuffix(sent, " "+a.token.AccessToken) {
		return nil // another request got a new token meanwhile
	}
	scopes := strings.Fields(challengeParam(cs, "scope"))
	if resp.StatusCode == http.StatusForbidden {
		if e := challengeParam(cs, "error"); e != "insufficient_scope" {
			return fmt.Errorf("the server refused the token (HTTP 403%s)", errorSuffix(e, challengeParam(cs, "error_description")))
		}
		if a.token != nil && len(scopes) > 0 && missing(scopes, a.token.Scopes) == nil {
			return fmt.Errorf("the server asks for the scopes %q, which the token has already: giving up", strings.Join(scopes, " "))
		}
		if a.grant() == grantAuthorizationCode && a.cfg.Browser == nil {
			return fmt.Errorf("insufficient scope (%s) and no Browser to ask the user for more", strings.Join(scopes, " "))
		}
	} else if a.token != nil && a.token.RefreshToken != "" && sent != "" {
		// A token the server no longer takes: a refreshed one may do.
		if err := a.refresh(ctx); err == nil {
			return nil
		}
	}
	if a.token != nil {
		// SEP-2350: ask for what was granted before too, so that a step-up
		// for one operation does not lose what another needs.
		scopes = union(a.token.Scopes, scopes)
	}
	return a.authorize(ctx, req.URL, challengeParam(cs, "resource_metadata"), scopes)
}

// authorize runs discovery, client identification and a grant, and keeps
// the token it gets. scopes are those to ask for; nil means the selection
// strategy's default (scopes_supported, or none).
func (a *Authorizer) authorize(ctx context.Context, server *url.URL, metadataURL string, scopes []string) error {
	prm, err := a.discoverResource(ctx, server, metadataURL)
	if err != nil {
		return err
	}
	resource := a.resource
	issuer := (&url.URL{Scheme: server.Scheme, Host: server.Host}).String() // 2025-03-26: the server's origin
	if prm != nil {
		resource = prm.Resource
		issuer = prm.AuthorizationServers[0]
		if len(scopes) == 0 {
			scopes = prm.ScopesSupported
		}
	}
	md := a.server
	if md == nil || a.issuer != issuer {
		if md, err = a.discoverServer(ctx, issuer, prm == nil); err != nil {
			return err
		}
		a.server, a.issuer, a.meta = md, issuer, prm
	}
	ci, err := a.client(ctx, md)
	if err != nil {
		return err
	}
	t, err := a.obtain(ctx, md, ci, resource, scopes)
	if err != nil {
		return err
	}
	a.token = t
	return a.store.SetToken(ctx, a.resource, t)
}

// Login runs the authorization flow for the MCP server at serverURL before
// any request is sent, for a program that wants the user to log in up front;
// the server is asked nothing but its metadata.
func (a *Authorizer) Login(ctx context.Context, serverURL string) error {
	u, err := url.Parse(serverURL)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.resource = canonicalResource(u)
	return a.authorize(ctx, u, "", nil)
}

func missing(required, granted []string) []string {
	var out []string
	for _, s := range required {
		if !slices.Contains(granted, s) {
			out = append(out, s)
		}
	}
	return out
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func errorSuffix(code, desc string) string {
	switch {
	case code != "" && desc != "":
		return ": " + code + ": " + desc
	case code != "":
		return ": " + code
	}
	return ""
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

// signerAlg returns the JWS algorithm name of key, or alg when given.
func signerAlg(key crypto.Signer, alg string) string {
	if alg != "" {
		return alg
	}
	if _, ok := key.Public().(*ecdsa.PublicKey); ok {
		return "ES256"
	}
	return "RS256"
}
