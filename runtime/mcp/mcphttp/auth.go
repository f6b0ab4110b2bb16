package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Auth makes a Handler an OAuth 2.1 resource server, as the protocol's
// Authorization section describes: every request must carry a bearer token
// (Authorization: Bearer <token>, never in the URL) that Verify accepts. A
// request without one gets 401 with a WWW-Authenticate challenge naming the
// protected resource metadata document, where a client finds the
// authorization server to get a token from.
type Auth struct {
	// Verify checks a bearer token and returns what it grants. It must check
	// the token the way OAuth 2.1 asks of a resource server, the audience
	// included: a token issued for another resource must be refused, never
	// passed on. An error (ErrInvalidToken, or any other) gets 401 with
	// error="invalid_token"; a *ScopeError gets 403 with
	// error="insufficient_scope". A TokenInfo whose Expiry has passed gets
	// 401 too. r is the request, for verifiers that need more than the token
	// (its URL, a proof-of-possession header); ctx is its context.
	Verify func(ctx context.Context, token string, r *http.Request) (*TokenInfo, error)
	// ResourceMetadataURL is the absolute URL of the protected resource
	// metadata document (RFC 9728; see ProtectedResourceMetadataHandler),
	// named in the resource_metadata parameter of every challenge.
	ResourceMetadataURL string
	// Scopes are required of every token: one lacking any of them gets 403
	// with error="insufficient_scope". They are named in the scope parameter
	// of the challenges, so a client knows what to ask for.
	Scopes []string
	// HideTools leaves out of tools/list the tools whose Scopes
	// (mcp.Tool.Scopes, //rpcgen:tool scopes=...) the caller's token lacks.
	// Calling such a tool gets 403 insufficient_scope either way.
	HideTools bool
}

// TokenInfo is what a verified bearer token grants. A tool reads it with
// TokenInfoFromContext.
type TokenInfo struct {
	// Subject identifies the user (or client) the token was issued to. A
	// legacy session belongs to the subject that opened it: a request with
	// another subject's token finds no such session (404).
	Subject string
	// Scopes are the scopes the token grants.
	Scopes []string
	// Expiry is when the token stops being valid; the zero time means the
	// verifier vouches for it without a deadline.
	Expiry time.Time
	// Extra holds whatever else the verifier wants tools to see (claims,
	// tenant, client id).
	Extra map[string]any
}

// ErrInvalidToken is the error a Verify function returns for a token that is
// malformed, unknown, revoked, expired or issued for another resource.
var ErrInvalidToken = errors.New("mcphttp: invalid bearer token")

// ScopeError is the error a Verify function returns for a valid token that
// lacks scopes the request needs: the request gets 403 with
// error="insufficient_scope" and Required in the challenge's scope
// parameter.
type ScopeError struct {
	// Required are the scopes the request needs (those the token already
	// has included, so a client asking for a new token keeps them).
	Required []string
}

// Error says which scopes are required.
func (e *ScopeError) Error() string {
	return "mcphttp: insufficient scope: requires " + strings.Join(e.Required, " ")
}

type tokenInfoKey struct{}

// TokenInfoFromContext returns the verified token of the request ctx belongs
// to (a tool's context, or an http.Request's context behind a Handler with
// Auth), or nil when there is none.
func TokenInfoFromContext(ctx context.Context) *TokenInfo {
	ti, _ := ctx.Value(tokenInfoKey{}).(*TokenInfo)
	return ti
}

// withTokenInfo returns ctx carrying ti, and its subject as the principal
// of the MCP calls made with it (mcp.WithPrincipal: the state of a
// 2026-07-28 input_required result is bound to it); ctx itself when ti is
// nil. The token's scopes become the mcp.Grant that tools' Scopes are
// checked against; hideTools is Auth.HideTools.
func withTokenInfo(ctx context.Context, ti *TokenInfo, hideTools bool) context.Context {
	if ti == nil {
		return ctx
	}
	ctx = context.WithValue(ctx, tokenInfoKey{}, ti)
	ctx = mcp.WithGrant(ctx, &mcp.Grant{Scopes: ti.Scopes, HideTools: hideTools})
	return mcp.WithPrincipal(ctx, ti.Subject)
}

// tokenSubject returns the subject of the token r was authenticated with, or
// "" without Auth. A legacy session is bound to it: a session is found only
// by requests of the subject that opened it.
func tokenSubject(r *http.Request) string {
	if ti := TokenInfoFromContext(r.Context()); ti != nil {
		return ti.Subject
	}
	return ""
}

// authenticate checks r's bearer token against a. On success it returns r
// with the token's TokenInfo in its context; otherwise it answers r (401 or
// 403 with a challenge and a JSON-RPC error body) and returns false.
func (a *Auth) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	values := r.Header.Values("Authorization")
	if len(values) > 1 {
		a.challenge(w, http.StatusBadRequest, "invalid_request", "more than one Authorization header", nil)
		return nil, false
	}
	token, ok := bearerToken(values)
	if !ok {
		a.challenge(w, http.StatusUnauthorized, "", "Unauthorized: a bearer token is required", nil)
		return nil, false
	}
	if a.Verify == nil {
		a.challenge(w, http.StatusUnauthorized, "invalid_token", "Unauthorized: no token verifier is configured", nil)
		return nil, false
	}
	ti, err := a.Verify(r.Context(), token, r)
	if se, ok := errors.AsType[*ScopeError](err); ok {
		scopes := se.Required
		if len(scopes) == 0 {
			scopes = a.Scopes
		}
		a.challenge(w, http.StatusForbidden, "insufficient_scope", "Forbidden: the token lacks a required scope", scopes)
		return nil, false
	}
	if err != nil || ti == nil {
		a.challenge(w, http.StatusUnauthorized, "invalid_token", "Unauthorized: the bearer token is not valid", nil)
		return nil, false
	}
	if !ti.Expiry.IsZero() && !time.Now().Before(ti.Expiry) {
		a.challenge(w, http.StatusUnauthorized, "invalid_token", "Unauthorized: the bearer token has expired", nil)
		return nil, false
	}
	for _, s := range a.Scopes {
		if !hasScope(ti.Scopes, s) {
			a.challenge(w, http.StatusForbidden, "insufficient_scope", "Forbidden: the token lacks the scope "+strconv.Quote(s), a.Scopes)
			return nil, false
		}
	}
	return r.WithContext(withTokenInfo(r.Context(), ti, a.HideTools)), true
}

// bearerToken returns the token of an "Authorization: Bearer <token>" header
// (the scheme is case-insensitive, RFC 9110).
func bearerToken(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func hasScope(granted []string, s string) bool {
	for _, g := range granted {
		if g == s {
			return true
		}
	}
	return false
}

// challenge answers with status, a Bearer WWW-Authenticate challenge (RFC
// 6750 §3, RFC 9728 §5.1) and a JSON-RPC error body. errCode is the OAuth
// error ("" for a request that carried no token); scopes, when nil, default
// to a.Scopes.
func (a *Auth) challenge(w http.ResponseWriter, status int, errCode, message string, scopes []string) {
	if scopes == nil {
		scopes = a.Scopes
	}
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	param := func(name, value string) {
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		for i := 0; i < len(value); i++ {
			if c := value[i]; c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(value[i])
		}
		b.WriteByte('"')
		sep = ", "
	}
	if errCode != "" {
		param("error", errCode)
	}
	if status == http.StatusForbidden {
		// The order of the protocol's example of a scope challenge.
		if len(scopes) > 0 {
			param("scope", strings.Join(scopes, " "))
		}
		if a.ResourceMetadataURL != "" {
			param("resource_metadata", a.ResourceMetadataURL)
		}
	} else {
		if a.ResourceMetadataURL != "" {
			param("resource_metadata", a.ResourceMetadataURL)
		}
		if len(scopes) > 0 {
			param("scope", strings.Join(scopes, " "))
		}
	}
	w.Header().Set("WWW-Authenticate", b.String())
	writeError(w, status, nil, authErrorCode, message)
}

// authErrorCode is the JSON-RPC code of an authorization failure's body; the
// HTTP status and the challenge say what went wrong.
const authErrorCode = runtime.CodeInvalidRequest

// ProtectedResourceMetadata is the OAuth 2.0 Protected Resource Metadata
// document (RFC 9728) of an MCP server: it names the authorization servers a
// client gets tokens from.
type ProtectedResourceMetadata struct {
	// Resource is the resource identifier: the canonical URL of the MCP
	// endpoint (https://mcp.example.com/mcp), the audience tokens must name.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer URLs of the authorization servers;
	// the protocol requires at least one.
	AuthorizationServers []string `json:"authorization_servers"`
	// ScopesSupported are the scopes a client may ask for.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported are the ways a token may be sent; MCP allows
	// only "header".
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name of the server.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is the URL of documentation for developers.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
}

// ProtectedResourceMetadataHandler returns a handler serving md as JSON, to
// mount at the URL Auth.ResourceMetadataURL names, typically
// /.well-known/oauth-protected-resource followed by the MCP endpoint's path
// (and, as a fallback clients try, /.well-known/oauth-protected-resource).
// It answers GET and HEAD, and CORS preflights, so a browser-based client
// can read it from any origin; other methods get 405. It panics when md has
// no Resource or no AuthorizationServers, both of which the protocol requires.
func ProtectedResourceMetadataHandler(md ProtectedResourceMetadata) http.Handler {
	if md.Resource == "" || len(md.AuthorizationServers) == 0 {
		panic("mcphttp: ProtectedResourceMetadata needs a Resource and at least one of AuthorizationServers")
	}
	body, err := json.Marshal(md)
	if err != nil {
		panic("mcphttp: encode ProtectedResourceMetadata: " + err.Error())
	}
	body = append(body, '\n')
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hdr := w.Header()
		hdr.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			hdr.Set("Content-Type", "application/json")
			hdr.Set("Content-Length", length)
			hdr.Set("Cache-Control", "max-age=3600")
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodGet {
				_, _ = w.Write(body)
			}
		case http.MethodOptions:
			hdr.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			if h := r.Header.Get("Access-Control-Request-Headers"); h != "" {
				hdr.Set("Access-Control-Allow-Headers", h)
			}
			hdr.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		default:
			hdr.Set("Allow", "GET, HEAD, OPTIONS")
			writeError(w, http.StatusMethodNotAllowed, nil, runtime.CodeInvalidRequest, "Method Not Allowed")
		}
	})
}
