package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

const (
	jwtBearerGrant    = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	clientAssertionJW = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// obtain gets a token for resource from md with ci, by the Config's grant.
func (a *Authorizer) obtain(ctx context.Context, md *serverMetadata, ci *ClientInfo, resource string, scopes []string) (*Token, error) {
	method := a.authMethod(ci, md)
	ctx = a.tokenContext(ctx, md, false)
	switch a.grant() {
	case grantClientCredentials:
		params := url.Values{"resource": {resource}}
		return a.tokenRequest(ctx, md, ci, method, params, scopes, scopes, "")
	case grantJWTBearer:
		assertion, err := a.cfg.Assertion(ctx, AssertionRequest{Issuer: md.Issuer, TokenURL: md.TokenEndpoint, Resource: resource, Scopes: scopes})
		if err != nil {
			return nil, fmt.Errorf("get the assertion: %w", err)
		}
		params := url.Values{"grant_type": {jwtBearerGrant}, "assertion": {assertion}, "resource": {resource}}
		return a.tokenRequest(ctx, md, ci, method, params, scopes, scopes, "")
	}
	return a.authorizationCode(ctx, md, ci, method, resource, scopes)
}

// authorizationCode runs the authorization code grant with PKCE: the user's
// trip to the authorization server through the Browser, the RFC 9207 iss
// check (SEP-2468), and the code's exchange.
func (a *Authorizer) authorizationCode(ctx context.Context, md *serverMetadata, ci *ClientInfo, method, resource string, scopes []string) (*Token, error) {
	if a.cfg.Browser == nil || a.cfg.RedirectURL == "" {
		return nil, errNoBrowser
	}
	if md.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("authorization server %s has no authorization_endpoint", md.Issuer)
	}
	if !md.fallback && !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		// The protocol: no advertised PKCE support, no authorization.
		return nil, fmt.Errorf("authorization server %s does not advertise PKCE with S256 (code_challenge_methods_supported): refusing to authorize", md.Issuer)
	}
	// offline_access when the server offers it, for a refresh token
	// (SEP-2207); never otherwise.
	if slices.Contains(md.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") && len(scopes) > 0 {
		scopes = append(slices.Clone(scopes), "offline_access")
	}
	conf := a.oauth2Config(md, ci, method, scopes)
	verifier := oauth2.GenerateVerifier()
	state := randomString()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource)}
	if slices.Contains(scopes, "offline_access") {
		// OpenID Connect Core §11: a request for offline access must ask for
		// consent, or an OpenID provider drops offline_access and issues no
		// refresh token. A plain OAuth server ignores the parameter.
		opts = append(opts, oauth2.SetAuthURLParam("prompt", "consent"))
	}
	authURL := conf.AuthCodeURL(state, opts...)
	// The issuer the response must name is recorded now, with the verifier.
	expectedIssuer := md.Issuer
	a.log.Debug("oauth: authorization request", "url", authURL)
	got, err := a.cfg.Browser(ctx, authURL)
	if err != nil {
		return nil, fmt.Errorf("authorization: %w", err)
	}
	// RFC 9207 §2.4 as the protocol's table has it: a present iss must be
	// the issuer exactly (no normalisation); an absent one is refused when
	// the server said it sends one. Only then is anything else read.
	if iss, ok := got["iss"]; ok {
		if len(iss) != 1 || iss[0] != expectedIssuer {
			return nil, fmt.Errorf("authorization response from the issuer %q, not %q: rejected (RFC 9207)", strings.Join(iss, ","), expectedIssuer)
		}
	} else if md.IssParameterSupported {
		return nil, fmt.Errorf("authorization response without the iss parameter %s promised: rejected (RFC 9207)", expectedIssuer)
	}
	if got.Get("state") != state {
		return nil, errors.New("authorization response with another state: rejected")
	}
	if e := got.Get("error"); e != "" {
		return nil, fmt.Errorf("authorization refused%s", errorSuffix(e, got.Get("error_description")))
	}
	code := got.Get("code")
	if code == "" {
		return nil, errors.New("authorization response without a code")
	}
	opts = []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource)}
	for k, v := range a.clientAssertion(md, ci, method) {
		opts = append(opts, oauth2.SetAuthURLParam(k, v[0]))
	}
	tok, err := conf.Exchange(ctx, code, opts...)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	return a.keep(tok, md, scopes, ""), nil
}

// oauth2Config returns the golang.org/x/oauth2 configuration of a flow.
func (a *Authorizer) oauth2Config(md *serverMetadata, ci *ClientInfo, method string, scopes []string) *oauth2.Config {
	conf := &oauth2.Config{
		ClientID:    ci.ClientID,
		Endpoint:    oauth2.Endpoint{AuthURL: md.AuthorizationEndpoint, TokenURL: md.TokenEndpoint, AuthStyle: authStyle(method)},
		RedirectURL: a.cfg.RedirectURL,
		Scopes:      scopes,
	}
	if method == "client_secret_basic" || method == "client_secret_post" {
		conf.ClientSecret = ci.ClientSecret
	}
	return conf
}

// authStyle maps a token endpoint authentication method to how x/oauth2
// sends the client's credentials: never by probing, which would send the
// request twice.
func authStyle(method string) oauth2.AuthStyle {
	if method == "client_secret_basic" {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// tokenRequest sends a token request of another grant than the
// authorization code (params holds its grant_type, unless it is
// client_credentials) with the client's authentication, through x/oauth2's
// client credentials flow, which takes any grant type; scopes go in its
// scope parameter. The token keeps the scopes asked (when the answer names
// none) and, when the answer brings no new one, refresh.
func (a *Authorizer) tokenRequest(ctx context.Context, md *serverMetadata, ci *ClientInfo, method string, params url.Values, scopes, asked []string, refresh string) (*Token, error) {
	conf := clientcredentials.Config{ClientID: ci.ClientID, TokenURL: md.TokenEndpoint, Scopes: scopes, AuthStyle: authStyle(method), EndpointParams: params}
	if method == "client_secret_basic" || method == "client_secret_post" {
		conf.ClientSecret = ci.ClientSecret
	}
	for k, v := range a.clientAssertion(md, ci, method) {
		params[k] = v
	}
	tok, err := conf.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	return a.keep(tok, md, asked, refresh), nil
}

// refresh replaces the current token with a refreshed one (with the
// resource parameter, which x/oauth2's own refresh leaves out).
func (a *Authorizer) refresh(ctx context.Context) error {
	t := a.token
	md := a.server
	if md == nil || md.Issuer != t.Issuer {
		md = &serverMetadata{Issuer: t.Issuer, TokenEndpoint: t.TokenURL}
	}
	ci, err := a.client(ctx, md)
	if err != nil {
		return err
	}
	method := a.authMethod(ci, md)
	resource := a.resource
	if a.meta != nil {
		resource = a.meta.Resource
	}
	params := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.RefreshToken}, "resource": {resource}}
	// A DPoP-bound token's refresh needs a proof of the same key, whether
	// or not the metadata (absent after a restart) says so.
	bound := strings.EqualFold(t.TokenType, "DPoP")
	nt, err := a.tokenRequest(a.tokenContext(ctx, md, bound), md, ci, method, params, nil, t.Scopes, t.RefreshToken)
	if err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	a.token = nt
	a.log.Debug("oauth: refreshed the token", "issuer", md.Issuer)
	return a.store.SetToken(ctx, a.resource, a.token)
}

// keep turns an x/oauth2 token into a Token: the scopes granted (those
// asked for when the response does not say), and the refresh token kept
// when the response brings no new one.
func (a *Authorizer) keep(tok *oauth2.Token, md *serverMetadata, asked []string, oldRefresh string) *Token {
	t := &Token{AccessToken: tok.AccessToken, TokenType: tok.TokenType, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry,
		IssuedAt: time.Now(), Scopes: asked, Issuer: md.Issuer, TokenURL: md.TokenEndpoint}
	if t.TokenType == "" {
		t.TokenType = "Bearer"
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		t.Scopes = strings.Fields(s)
	}
	if t.RefreshToken == "" {
		t.RefreshToken = oldRefresh
	}
	return t
}

// tokenContext returns ctx carrying the HTTP client x/oauth2 sends token
// requests with: ours, with DPoP proofs when the server takes them or the
// token to refresh is bound (bound).
func (a *Authorizer) tokenContext(ctx context.Context, md *serverMetadata, bound bool) context.Context {
	hc := a.http
	if a.dpop != nil && (bound || slices.Contains(md.DPoPSigningAlgValuesSupported, a.dpop.alg)) {
		hc = a.dpop.client(hc, a.nonces)
	}
	return context.WithValue(ctx, oauth2.HTTPClient, hc)
}

// randomString returns 32 random bytes in base64url.
func randomString() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// The clock client assertions are dated by.
var now = time.Now
