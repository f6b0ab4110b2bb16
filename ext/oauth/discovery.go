package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// resourceMetadata is a Protected Resource Metadata document (RFC 9728 §2).
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is an authorization server's metadata (RFC 8414 §2, and
// the OpenID Connect Discovery fields of the same names).
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
	DPoPSigningAlgValuesSupported     []string `json:"dpop_signing_alg_values_supported"`

	// fallback says the metadata was made up from 2025-03-26's default
	// endpoints: the server published none.
	fallback bool
}

// maxMetadata bounds a metadata document or a registration response.
const maxMetadata = 1 << 20

// errNotFound is a metadata URL that has no document (an HTTP 4xx).
var errNotFound = errors.New("not found")

// getJSON GETs u into v. A 4xx answer is errNotFound.
func (a *Authorizer) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	switch {
	case err != nil:
		return err
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return fmt.Errorf("GET %s: HTTP %d: %w", u, resp.StatusCode, errNotFound)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	case len(body) > maxMetadata:
		return fmt.Errorf("GET %s: the document is over %d bytes", u, maxMetadata)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %v", u, err)
	}
	return nil
}

// wellKnown returns the URL of the well-known document suffix for the
// identifier id, inserted before its path (RFC 8414 §3.1, RFC 9728 §3.1):
// https://h/.well-known/suffix/path, or https://h/.well-known/suffix
// for an identifier without a path.
func wellKnown(id *url.URL, suffix string) string {
	u := url.URL{Scheme: id.Scheme, Host: id.Host, Path: "/.well-known/" + suffix}
	if p := strings.TrimSuffix(id.Path, "/"); p != "" {
		u.Path += p
	}
	return u.String()
}

// discoverResource fetches the server's Protected Resource Metadata: from
// the challenge's resource_metadata URL when it names one, else from the
// well-known URL with the server's path and then the root one. It checks that
// the document is for server (the resource is the server's URL or a prefix of
// it on the same origin). A server that publishes none yields nil.
func (a *Authorizer) discoverResource(ctx context.Context, server *url.URL, metadataURL string) (*resourceMetadata, error) {
	var tries []string
	if metadataURL != "" {
		tries = append(tries, metadataURL)
	}
	tries = append(tries, wellKnown(server, "oauth-protected-resource"))
	if root := wellKnown(&url.URL{Scheme: server.Scheme, Host: server.Host}, "oauth-protected-resource"); root != tries[len(tries)-1] {
		tries = append(tries, root)
	}
	for _, u := range tries {
		var md resourceMetadata
		err := a.getJSON(ctx, u, &md)
		if errors.Is(err, errNotFound) {
			a.log.Debug("oauth: no protected resource metadata", "url", u)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata: %w", err)
		}
		if len(md.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("protected resource metadata %s names no authorization server", u)
		}
		if md.Resource == "" {
			md.Resource = canonicalResource(server)
		}
		if !resourceCovers(md.Resource, server) {
			return nil, fmt.Errorf("protected resource metadata %s is for the resource %q, not for %s", u, md.Resource, canonicalResource(server))
		}
		a.log.Debug("oauth: protected resource metadata", "url", u, "resource", md.Resource, "authorization_servers", md.AuthorizationServers)
		return &md, nil
	}
	return nil, nil
}

// canonicalResource returns the canonical URI of the MCP server at u (RFC
// 8707 §2): scheme and host in lower case, no query, no fragment, no
// trailing slash on an empty path.
func canonicalResource(u *url.URL) string {
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	if c.Path == "/" {
		c.Path = ""
	}
	return c.String()
}

// resourceCovers reports whether the resource identifier res names the
// server at u: the same origin, and a path that is u's or a parent of it.
func resourceCovers(res string, u *url.URL) bool {
	r, err := url.Parse(res)
	if err != nil || r.Fragment != "" || !strings.EqualFold(r.Scheme, u.Scheme) || !strings.EqualFold(r.Host, u.Host) {
		return false
	}
	rp, up := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(u.Path, "/")
	return rp == "" || up == rp || strings.HasPrefix(up, rp+"/")
}

// discoverServer fetches the metadata of the authorization server issuer,
// trying the well-known URLs in the order the specification gives, and
// checks that the document's issuer is exactly issuer (RFC 8414 §3.3). When
// legacy is set (the MCP server published no resource metadata: 2025-03-26)
// and the server has none either, it returns 2025-03-26's default endpoints
// under issuer.
func (a *Authorizer) discoverServer(ctx context.Context, issuer string, legacy bool) (*serverMetadata, error) {
	id, err := url.Parse(issuer)
	if err != nil || id.Host == "" || (id.Scheme != "https" && id.Scheme != "http") {
		return nil, fmt.Errorf("authorization server %q is not an http(s) URL", issuer)
	}
	if id.RawQuery != "" || id.Fragment != "" {
		return nil, fmt.Errorf("authorization server %q has a query or a fragment", issuer)
	}
	tries := []string{wellKnown(id, "oauth-authorization-server"), wellKnown(id, "openid-configuration")}
	if p := strings.TrimSuffix(id.Path, "/"); p != "" {
		tries = append(tries, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration")
	}
	for _, u := range tries {
		var md serverMetadata
		err := a.getJSON(ctx, u, &md)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		if md.Issuer != issuer {
			return nil, fmt.Errorf("authorization server metadata %s names the issuer %q, not %q: not used", u, md.Issuer, issuer)
		}
		if md.TokenEndpoint == "" {
			return nil, fmt.Errorf("authorization server metadata %s has no token_endpoint", u)
		}
		a.log.Debug("oauth: authorization server metadata", "url", u, "issuer", md.Issuer)
		return &md, nil
	}
	if !legacy {
		return nil, fmt.Errorf("authorization server %s publishes no metadata (tried %s)", issuer, strings.Join(tries, ", "))
	}
	base := strings.TrimSuffix(issuer, "/")
	a.log.Debug("oauth: no authorization server metadata; using the 2025-03-26 default endpoints", "base", base)
	return &serverMetadata{Issuer: issuer, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token",
		RegistrationEndpoint: base + "/register", fallback: true}, nil
}
