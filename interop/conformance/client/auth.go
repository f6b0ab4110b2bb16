package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/rpcgen/rpcgen/ext/oauth"
)

// The OAuth scenarios: the host sets up rpcgen's OAuth client (ext/oauth)
// the way each scenario's context asks (a pre-registered client, client
// credentials, a workload assertion, an enterprise IdP, DPoP), then lists
// and calls the tools. Everything the scenario judges (discovery order,
// registration, PKCE, the resource parameter, scopes, iss, refusal of a
// mismatched resource) is the library's own behaviour.

// cimdURL is the Client ID Metadata Document URL the suite's scenarios
// expect a client to use.
const cimdURL = "https://conformance-test.local/client-metadata.json"

// redirectURL is the redirect URI the client registers; the "browser"
// below reads the authorization server's redirect instead of following it.
const redirectURL = "http://localhost:3000/callback"

func init() {
	for _, s := range []string{
		"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
		"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
		"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
		"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
		"auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
		"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
		"auth/authorization-server-migration", "auth/iss-supported", "auth/iss-not-advertised",
		"auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
		"auth/metadata-issuer-mismatch", "auth/client-credentials-jwt", "auth/client-credentials-basic",
		"auth/enterprise-managed-authorization", "auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer",
	} {
		scenarios[s] = authorized
	}
}

// scenarioContext is MCP_CONFORMANCE_CONTEXT, the values a scenario hands
// its client.
type scenarioContext struct {
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	PrivateKeyPEM string `json:"private_key_pem"`
	SigningAlg    string `json:"signing_algorithm"`
	IDPClientID   string `json:"idp_client_id"`
	IDPIDToken    string `json:"idp_id_token"`
	IDPTokenURL   string `json:"idp_token_endpoint"`
	ValidJWT      string `json:"valid_jwt"`
}

// authorized connects with an OAuth Authorizer configured for the scenario,
// then lists and calls the tools.
func authorized(ctx context.Context, h *host) error {
	var sc scenarioContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	cfg := oauth.Config{
		ClientMetadataURL: cimdURL,
		Metadata:          oauth.ClientMetadata{ClientName: "rpcgen-conformance-client"},
		RedirectURL:       redirectURL,
		Browser:           followRedirect,
		Logger:            h.logger,
		DPoP:              true,
	}
	switch {
	case sc.IDPIDToken != "":
		// Enterprise-managed authorization: the IdP's ID token becomes an
		// ID-JAG, which the pre-registered client presents.
		cfg.ClientID, cfg.ClientSecret = sc.ClientID, sc.ClientSecret
		cfg.Assertion = oauth.IDJAGAssertion(oauth.IDJAG{TokenURL: sc.IDPTokenURL, ClientID: sc.IDPClientID,
			IDToken: func(context.Context) (string, error) { return sc.IDPIDToken, nil }})
	case sc.ValidJWT != "":
		// Workload identity federation: the workload's JWT is the grant.
		cfg.ClientID = sc.ClientID
		cfg.Assertion = func(context.Context, oauth.AssertionRequest) (string, error) { return sc.ValidJWT, nil }
	case sc.PrivateKeyPEM != "":
		key, err := oauth.ParsePrivateKey([]byte(sc.PrivateKeyPEM))
		if err != nil {
			return err
		}
		cfg.ClientID, cfg.PrivateKey, cfg.SigningAlgorithm, cfg.ClientCredentials = sc.ClientID, key, sc.SigningAlg, true
	case sc.ClientID != "" && strings.HasPrefix(os.Getenv("MCP_CONFORMANCE_SCENARIO"), "auth/client-credentials"):
		cfg.ClientID, cfg.ClientSecret, cfg.ClientCredentials = sc.ClientID, sc.ClientSecret, true
	case sc.ClientID != "":
		cfg.ClientID, cfg.ClientSecret = sc.ClientID, sc.ClientSecret
	}
	a, err := oauth.New(cfg)
	if err != nil {
		return err
	}
	h.authorizer = a
	return listAndCallAll(ctx, h)
}

// followRedirect is the host's "browser": the suite's authorization server
// answers the authorization request with a redirect at once (it plays the
// user who consents), so the code is in the Location it sends.
func followRedirect(ctx context.Context, authURL string) (url.Values, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		return nil, errors.New("the authorization server did not redirect back: HTTP " + resp.Status)
	}
	if !strings.HasPrefix(loc.String(), redirectURL) {
		return nil, fmt.Errorf("the authorization server redirected to %s, not to the redirect URI", loc)
	}
	return loc.Query(), nil
}
