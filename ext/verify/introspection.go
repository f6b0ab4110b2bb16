package verify

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// IntrospectionConfig configures an Introspection verifier.
type IntrospectionConfig struct {
	// URL is the authorization server's introspection endpoint.
	URL string
	// ClientID and ClientSecret authenticate this resource server at it
	// (HTTP Basic).
	ClientID, ClientSecret string
	// Audience is this resource's identifier: the answer's aud must hold
	// it. Required.
	Audience string
	// Issuer, when set, must be the answer's iss.
	Issuer string
	// HTTPClient sends the requests; nil means a client with a 10-second
	// timeout.
	HTTPClient *http.Client
}

// Introspection verifies opaque access tokens by asking the authorization
// server (RFC 7662) for each request; it keeps no cache.
type Introspection struct {
	cfg IntrospectionConfig
	hc  *http.Client
}

// NewIntrospection returns an introspecting verifier.
func NewIntrospection(cfg IntrospectionConfig) (*Introspection, error) {
	if cfg.URL == "" || cfg.Audience == "" {
		return nil, fmt.Errorf("verify: IntrospectionConfig needs a URL and an Audience")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	return &Introspection{cfg: cfg, hc: hc}, nil
}

// Verify implements mcphttp.Auth.Verify.
func (v *Introspection) Verify(ctx context.Context, token string, _ *http.Request) (*mcphttp.TokenInfo, error) {
	if len(token) > maxToken {
		return nil, invalid("the token is over %d bytes", maxToken)
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.cfg.URL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.cfg.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(v.cfg.ClientID), url.QueryEscape(v.cfg.ClientSecret))
	}
	resp, err := v.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("verify: introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("verify: introspection: HTTP %d", resp.StatusCode)
	}
	var ans map[string]any
	if err := decodeJSON(resp, &ans); err != nil {
		return nil, fmt.Errorf("verify: introspection: %v", err)
	}
	if active, _ := ans["active"].(bool); !active {
		return nil, invalid("the authorization server says the token is not active")
	}
	if v.cfg.Issuer != "" && ans["iss"] != v.cfg.Issuer {
		return nil, invalid("issued by %v, not %s", ans["iss"], v.cfg.Issuer)
	}
	var aud []string
	switch a := ans["aud"].(type) {
	case string:
		aud = []string{a}
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok {
				aud = append(aud, s)
			}
		}
	}
	if !slices.Contains(aud, v.cfg.Audience) {
		return nil, invalid("the token is for %v, not for %s", aud, v.cfg.Audience)
	}
	ti := &mcphttp.TokenInfo{Scopes: scopesOf(ans), Extra: ans}
	if exp, ok := ans["exp"].(float64); ok {
		ti.Expiry = time.Unix(int64(exp), 0)
		if !now().Before(ti.Expiry) {
			return nil, invalid("the token expired at %s", ti.Expiry.UTC().Format(time.RFC3339))
		}
	}
	ti.Subject, _ = ans["sub"].(string)
	if ti.Subject == "" {
		ti.Subject, _ = ans["client_id"].(string)
	}
	return ti, nil
}
