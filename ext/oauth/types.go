package oauth

import (
	"context"
	"crypto"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Config configures an Authorizer. The zero Config with a Browser and a
// RedirectURL logs a user in through Dynamic Client Registration.
type Config struct {
	// ClientID and ClientSecret are a pre-registered client, used first
	// when set. ClientIssuer, when set, is the issuer of the authorization
	// server they were registered with: another one is an error rather
	// than a leak of the credentials.
	ClientID, ClientSecret, ClientIssuer string
	// ClientMetadataURL is the HTTPS URL of the client's Client ID Metadata
	// Document (it must be served there; see ClientMetadata.Handler), used
	// as the client_id when the authorization server says
	// client_id_metadata_document_supported.
	ClientMetadataURL string
	// Metadata is what Dynamic Client Registration sends. Its zero fields
	// get defaults: the RedirectURL, the grants this Config uses,
	// response type code, token_endpoint_auth_method none (private_key_jwt
	// with a PrivateKey), and application_type native for a loopback
	// redirect, web otherwise.
	Metadata ClientMetadata
	// PrivateKey authenticates the client at the token endpoint with a
	// signed JWT (private_key_jwt, RFC 7523) instead of a secret; KeyID is
	// its kid and SigningAlgorithm its JWS algorithm (ES256 by default for
	// an ECDSA key, RS256 for an RSA key). See ParsePrivateKey.
	PrivateKey       crypto.Signer
	KeyID            string
	SigningAlgorithm string

	// RedirectURL is the redirect URI of the authorization code grant.
	RedirectURL string
	// Browser takes the user through the authorization server's login: it
	// is required for the authorization code grant, the default.
	Browser Browser
	// ClientCredentials makes the client a machine client that gets its
	// tokens with the client_credentials grant (with ClientID and
	// ClientSecret, or PrivateKey).
	ClientCredentials bool
	// Assertion, when set, gets tokens with the JWT bearer grant (RFC
	// 7523): it returns the assertion to present (a workload identity
	// token, or an ID-JAG from IDJAGAssertion).
	Assertion func(ctx context.Context, req AssertionRequest) (string, error)

	// DPoP binds the tokens to a key of the client's (RFC 9449) when the
	// authorization server supports ES256 proofs; DPoPKey is that key (a
	// fresh P-256 key when nil).
	DPoP    bool
	DPoPKey crypto.Signer

	// Store keeps tokens and registrations; nil means in memory.
	Store Store
	// HTTPClient sends the discovery, registration and token requests;
	// nil means http.DefaultClient.
	HTTPClient *http.Client
	// Logger gets the flow's steps at debug level; nil discards them.
	Logger *slog.Logger
}

// A Browser takes the user to the authorization server: it opens authURL (in
// the user's browser, say) and returns the query parameters of the redirect
// that comes back to the client's redirect URI (code, state and iss; or error
// and error_description). Loopback.Browser is one for command-line programs.
type Browser func(ctx context.Context, authURL string) (url.Values, error)

// AssertionRequest says for what an assertion is wanted.
type AssertionRequest struct {
	// Issuer is the authorization server's issuer, the assertion's audience.
	Issuer string
	// TokenURL is its token endpoint.
	TokenURL string
	// Resource is the MCP server the token is for (RFC 8707).
	Resource string
	// Scopes are the scopes the client will ask for.
	Scopes []string
}

// ClientMetadata is the metadata of an OAuth client (RFC 7591 §2), as
// Dynamic Client Registration sends it and a Client ID Metadata Document
// holds it.
type ClientMetadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	LogoURI                 string   `json:"logo_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	JWKSURI                 string   `json:"jwks_uri,omitempty"`
	SoftwareID              string   `json:"software_id,omitempty"`
	SoftwareVersion         string   `json:"software_version,omitempty"`
}

// ClientInfo is a client's registration with one authorization server.
type ClientInfo struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is its token_endpoint_auth_method; "" chooses by what
	// the authorization server supports.
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// SecretExpiresAt is when ClientSecret expires; zero for never.
	SecretExpiresAt time.Time `json:"client_secret_expires_at,omitzero"`
}

// Token is an access token for one resource, with what it takes to refresh
// it.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// IssuedAt is when the client got the token: with Expiry, its
	// lifetime, which sets how early it is refreshed.
	IssuedAt time.Time `json:"issued_at,omitzero"`
	// Scopes are the scopes granted (those asked for when the server did
	// not say).
	Scopes []string `json:"scopes,omitempty"`
	// Issuer and TokenURL are the authorization server that issued it.
	Issuer   string `json:"issuer"`
	TokenURL string `json:"token_url"`
}

// expired reports whether t is past its expiry, or within its refresh
// margin of it.
func (t *Token) expired(now time.Time) bool {
	return !t.Expiry.IsZero() && !now.Add(t.margin()).Before(t.Expiry)
}

// margin is how long before its expiry t is refreshed: a tenth of its
// lifetime, at most maxRefreshMargin (30 s for tokens of 5 minutes and
// more, 3 s for a 30-second token); maxRefreshMargin when the lifetime is
// not known.
func (t *Token) margin() time.Duration {
	if t.IssuedAt.IsZero() || !t.IssuedAt.Before(t.Expiry) {
		return maxRefreshMargin
	}
	return min(t.Expiry.Sub(t.IssuedAt)/10, maxRefreshMargin)
}

// maxRefreshMargin is the most a token is refreshed before its expiry.
const maxRefreshMargin = 30 * time.Second

// Handler serves m as a Client ID Metadata Document, to mount at the URL
// that is the client's Config.ClientMetadataURL (m.ClientID must be that URL
// exactly, and m name the redirect URIs). It answers GET and HEAD.
func (m ClientMetadata) Handler() http.Handler {
	body, _ := json.Marshal(m)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	})
}
