package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// client returns the client to use with the authorization server md, in
// the specification's order: pre-registered, a Client ID Metadata Document,
// a registration kept from before, Dynamic Client Registration.
func (a *Authorizer) client(ctx context.Context, md *serverMetadata) (*ClientInfo, error) {
	c := &a.cfg
	if c.ClientID != "" {
		if c.ClientIssuer != "" && c.ClientIssuer != md.Issuer {
			return nil, fmt.Errorf("the pre-registered client is registered with %s, but the server's authorization server is %s", c.ClientIssuer, md.Issuer)
		}
		return &ClientInfo{ClientID: c.ClientID, ClientSecret: c.ClientSecret}, nil
	}
	if c.ClientMetadataURL != "" && md.ClientIDMetadataDocumentSupported {
		return &ClientInfo{ClientID: c.ClientMetadataURL}, nil
	}
	if ci, err := a.store.Client(ctx, md.Issuer); err != nil || ci != nil && (ci.SecretExpiresAt.IsZero() || time.Now().Before(ci.SecretExpiresAt)) {
		return ci, err
	}
	if md.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("authorization server %s supports neither Client ID Metadata Documents nor Dynamic Client Registration, and no client is pre-registered (Config.ClientID)", md.Issuer)
	}
	ci, err := a.register(ctx, md)
	if err != nil {
		return nil, err
	}
	return ci, a.store.SetClient(ctx, md.Issuer, ci)
}

// registrationMetadata returns the metadata Dynamic Client Registration
// sends: Config.Metadata with its defaults filled in.
func (a *Authorizer) registrationMetadata() ClientMetadata {
	c := &a.cfg
	m := c.Metadata
	if m.ClientName == "" {
		m.ClientName = "rpcgen MCP client"
	}
	if m.RedirectURIs == nil && c.RedirectURL != "" && a.grant() == grantAuthorizationCode {
		m.RedirectURIs = []string{c.RedirectURL}
	}
	if m.GrantTypes == nil {
		switch a.grant() {
		case grantAuthorizationCode:
			m.GrantTypes = []string{"authorization_code", "refresh_token"}
		case grantClientCredentials:
			m.GrantTypes = []string{"client_credentials"}
		case grantJWTBearer:
			m.GrantTypes = []string{jwtBearerGrant}
		}
	}
	if m.ResponseTypes == nil && a.grant() == grantAuthorizationCode {
		m.ResponseTypes = []string{"code"}
	}
	if m.TokenEndpointAuthMethod == "" {
		m.TokenEndpointAuthMethod = "none"
		if c.PrivateKey != nil {
			m.TokenEndpointAuthMethod = "private_key_jwt"
		} else if a.grant() == grantClientCredentials {
			m.TokenEndpointAuthMethod = "client_secret_basic"
		}
	}
	if m.ApplicationType == "" {
		// SEP-837: command-line and desktop programs (a loopback redirect)
		// are native applications; anything else is a web one.
		m.ApplicationType = "web"
		if u, err := url.Parse(c.RedirectURL); err == nil && isLoopbackHost(u.Hostname()) || c.RedirectURL == "" {
			m.ApplicationType = "native"
		}
	}
	return m
}

func isLoopbackHost(h string) bool {
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// register runs Dynamic Client Registration (RFC 7591) with md.
func (a *Authorizer) register(ctx context.Context, md *serverMetadata) (*ClientInfo, error) {
	body, err := json.Marshal(a.registrationMetadata())
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client registration: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return nil, fmt.Errorf("client registration: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("client registration at %s: HTTP %d%s", md.RegistrationEndpoint, resp.StatusCode, oauthErrorText(raw))
	}
	var out struct {
		ClientID              string `json:"client_id"`
		ClientSecret          string `json:"client_secret"`
		AuthMethod            string `json:"token_endpoint_auth_method"`
		ClientSecretExpiresAt int64  `json:"client_secret_expires_at"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.ClientID == "" {
		return nil, fmt.Errorf("client registration at %s: the response has no client_id", md.RegistrationEndpoint)
	}
	ci := &ClientInfo{ClientID: out.ClientID, ClientSecret: out.ClientSecret, AuthMethod: out.AuthMethod}
	if out.ClientSecretExpiresAt > 0 {
		ci.SecretExpiresAt = time.Unix(out.ClientSecretExpiresAt, 0)
	}
	a.log.Debug("oauth: registered", "issuer", md.Issuer, "client_id", ci.ClientID, "auth_method", ci.AuthMethod)
	return ci, nil
}

// authMethod returns the token endpoint authentication method for ci with
// md: the one the registration named, else private_key_jwt with a key, else
// for a client with a secret client_secret_basic (the default of RFC 8414)
// or client_secret_post when only that is supported, else none.
func (a *Authorizer) authMethod(ci *ClientInfo, md *serverMetadata) string {
	if ci.AuthMethod != "" {
		return ci.AuthMethod
	}
	supported := md.TokenEndpointAuthMethodsSupported
	ok := func(m string) bool {
		return len(supported) == 0 && m == "client_secret_basic" || slices.Contains(supported, m)
	}
	switch {
	case a.cfg.PrivateKey != nil && ci.ClientID == a.cfg.ClientID || a.cfg.PrivateKey != nil && ci.ClientID == a.cfg.ClientMetadataURL:
		return "private_key_jwt"
	case ci.ClientSecret != "" && ok("client_secret_basic"):
		return "client_secret_basic"
	case ci.ClientSecret != "" && ok("client_secret_post"):
		return "client_secret_post"
	case ci.ClientSecret != "" && len(supported) > 0 && !slices.Contains(supported, "none"):
		return "client_secret_basic"
	}
	return "none"
}

// oauthErrorText returns ": error: description" from an OAuth error body, or
// "".
func oauthErrorText(raw []byte) string {
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Error == "" {
		return ""
	}
	if e.Description != "" {
		return ": " + e.Error + ": " + e.Description
	}
	return ": " + e.Error
}

var errNoBrowser = errors.New("the authorization code grant needs Config.Browser (and a RedirectURL) to take the user to the authorization server")
