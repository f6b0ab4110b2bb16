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
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
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
	// passed on. It alone decides whether the token is still valid, with
	// whatever clock-skew leeway it allows on its expiry (ext/verify's
	// verifiers allow 30 seconds by default): the handler does not check
	// TokenInfo.Expiry again. An error (ErrInvalidToken, or any other) gets
	// 401 with error="invalid_token"; a *ScopeError gets 403 with
	// error="insufficient_scope"; a *ChallengeError chooses its challenge.
	// r is the request, for verifiers that need more than the token (its
	// URL, the DPoP proof header); ctx is its context.
	Verify func(ctx context.Context, token string, r *http.Request) (*TokenInfo, error)
	// DPoPAlgorithms, when set, makes the handler take DPoP-bound tokens
	// too (RFC 9449): "Authorization: DPoP <token>" with a DPoP proof
	// header. Verify gets them like bearer tokens and must check the proof
	// and the token's binding to the proof's key (ext/verify's JWT does,
	// with JWTConfig.DPoP); a request without credentials is offered both
	// schemes, the DPoP challenge naming these algorithms (algs). Without
	// it the DPoP scheme is refused as any scheme but Bearer is.
	DPoPAlgorithms []string
	// ResourceMetadataURL is the absolute URL of the protected resource
	// metadata document (RFC 9728; see ProtectedResourceMetadataHandler),
	// named in the resource_metadata parameter of every challenge.
	ResourceMetadataURL string
	// Scopes are required of every token: one lacking any of them gets 403
	// with error="insufficient_scope". They are named in the scope parameter
	// of the challenges, so a client knows what to ask for.
	Scopes []string
	// HideTools leaves out of tools/list the tools whose Scopes
	// (mcpserver.Tool.Scopes, //rpcgen:tool scopes=...) the caller's token lacks.
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

// ChallengeError is an error a Verify function returns to choose how a
// refused request is answered: 401 (400 for invalid_request) with a
// challenge of Scheme carrying Code and Description, and Header added to
// the response. It is how a DPoP verifier answers RFC 9449's
// invalid_dpop_proof, or use_dpop_nonce with a DPoP-Nonce header.
type ChallengeError struct {
	// Scheme is the challenge's scheme, "Bearer" or "DPoP"; "" means the
	// scheme the request used.
	Scheme string
	// Code is the challenge's error parameter; "" means invalid_token.
	Code string
	// Description is its error_description, sent to the client: say what
	// a developer needs, nothing secret.
	Description string
	// Header holds header fields to set on the answer (DPoP-Nonce).
	Header http.Header
	// Err is the cause, for the server's logs and errors.Is.
	Err error
}

// Error says what was refused and why.
func (e *ChallengeError) Error() string {
	code := e.Code
	if code == "" {
		code = "invalid_token"
	}
	msg := "mcphttp: " + code
	if e.Description != "" {
		msg += ": " + e.Description
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *ChallengeError) Unwrap() error { return e.Err }

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
// of the MCP calls made with it (mcpserver.WithPrincipal: the state of a
// 2026-07-28 input_required result is bound to it); ctx itself when ti is
// nil. The token's scopes become the mcpserver.Grant that tools' Scopes are
// checked against; hideTools is Auth.HideTools.
func withTokenInfo(ctx context.Context, ti *TokenInfo, hideTools bool) context.Context {
	if ti == nil {
		return ctx
	}
	ctx = context.WithValue(ctx, tokenInfoKey{}, ti)
	ctx = mcpserver.WithGrant(ctx, &mcpserver.Grant{Scopes: ti.Scopes, HideTools: hideTools})
	return mcpserver.WithPrincipal(ctx, ti.Subject)
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

// authenticate checks r's token against a. On success it returns r with
// the token's TokenInfo in its context; otherwise it answers r (401, 403 or
// 400 with a challenge and a JSON-RPC error body) and returns false.
func (a *Auth) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	values := r.Header.Values("Authorization")
	if len(values) > 1 {
		a.challenge(w, r, http.StatusBadRequest, "invalid_request", "", "more than one Authorization header", nil)
		return nil, false
	}
	token, ok := a.token(values)
	if !ok {
		a.challenge(w, r, http.StatusUnauthorized, "", "", "Unauthorized: a bearer token is required", nil)
		return nil, false
	}
	if a.Verify == nil {
		a.challenge(w, r, http.StatusUnauthorized, "invalid_token", "", "Unauthorized: no token verifier is configured", nil)
		return nil, false
	}
	ti, err := a.Verify(r.Context(), token, r)
	if se, ok := errors.AsType[*ScopeError](err); ok {
		scopes := se.Required
		if len(scopes) == 0 {
			scopes = a.Scopes
		}
		a.challenge(w, r, http.StatusForbidden, "insufficient_scope", "", "Forbidden: the token lacks a required scope", scopes)
		return nil, false
	}
	if ce, ok := errors.AsType[*ChallengeError](err); ok {
		a.refuse(w, r, ce)
		return nil, false
	}
	if err != nil || ti == nil {
		a.challenge(w, r, http.StatusUnauthorized, "invalid_token", "", "Unauthorized: the bearer token is not valid", nil)
		return nil, false
	}
	for _, s := range a.Scopes {
		if !hasScope(ti.Scopes, s) {
			a.challenge(w, r, http.StatusForbidden, "insufficient_scope", "", "Forbidden: the token lacks the scope "+strconv.Quote(s), a.Scopes)
			return nil, false
		}
	}
	return r.WithContext(withTokenInfo(r.Context(), ti, a.HideTools)), true
}

// refuse answers r as a Verify function's ChallengeError asks.
func (a *Auth) refuse(w http.ResponseWriter, r *http.Request, ce *ChallengeError) {
	for k, vs := range ce.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	code, status := ce.Code, http.StatusUnauthorized
	switch code {
	case "":
		code = "invalid_token"
	case "invalid_request":
		status = http.StatusBadRequest
	}
	scheme := ce.Scheme
	if scheme == "" {
		scheme = a.requestScheme(r)
	}
	msg := "Unauthorized: " + code
	if ce.Description != "" {
		msg += ": " + ce.Description
	}
	a.writeChallenge(w, status, scheme, code, ce.Description, msg, nil)
}

// token returns the token of an "Authorization: Bearer <token>" header, or
// of "Authorization: DPoP <token>" when a takes DPoP (schemes are
// case-insensitive, RFC 9110).
func (a *Auth) token(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") && !(strings.EqualFold(scheme, "DPoP") && len(a.DPoPAlgorithms) > 0) {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// requestScheme returns DPoP when r used that scheme and a takes it, and
// Bearer otherwise: a refusal is a challenge of the scheme the client used.
func (a *Auth) requestScheme(r *http.Request) string {
	scheme, _, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if strings.EqualFold(scheme, "DPoP") && len(a.DPoPAlgorithms) > 0 {
		return "DPoP"
	}
	return "Bearer"
}

func hasScope(granted []string, s string) bool {
	for _, g := range granted {
		if g == s {
			return true
		}
	}
	return false
}

// challenge answers r with status, a WWW-Authenticate challenge (RFC 6750
// §3, RFC 9728 §5.1; RFC 9449 §7.1 for a request that used the DPoP
// scheme) and a JSON-RPC error body. errCode is the OAuth error ("" for a
// request that carried no token, which is offered the DPoP scheme too when
// a takes it); scopes, when nil, default to a.Scopes.
func (a *Auth) challenge(w http.ResponseWriter, r *http.Request, status int, errCode, desc, message string, scopes []string) {
	if errCode == "" && len(a.DPoPAlgorithms) > 0 {
		// RFC 9449 §7.2: both schemes, each in a field of its own, Bearer
		// first for clients that read only the first.
		w.Header().Add("WWW-Authenticate", a.challengeValue(status, "Bearer", "", "", scopes))
		a.writeChallenge(w, status, "DPoP", "", desc, message, scopes)
		return
	}
	a.writeChallenge(w, status, a.requestScheme(r), errCode, desc, message, scopes)
}

// writeChallenge adds a challenge of scheme and writes the error answer.
func (a *Auth) writeChallenge(w http.ResponseWriter, status int, scheme, errCode, desc, message string, scopes []string) {
	w.Header().Add("WWW-Authenticate", a.challengeValue(status, scheme, errCode, desc, scopes))
	writeError(w, status, nil, authErrorCode, message)
}

// challengeValue returns a challenge of scheme: its error and description,
// the scopes (nil means a.Scopes) and the metadata URL, in the order of the
// protocol's examples, and for DPoP the algorithms taken.
func (a *Auth) challengeValue(status int, scheme, errCode, desc string, scopes []string) string {
	if scopes == nil {
		scopes = a.Scopes
	}
	var b strings.Builder
	b.WriteString(scheme)
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
	if desc != "" {
		param("error_description", desc)
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
	if scheme == "DPoP" && len(a.DPoPAlgorithms) > 0 {
		param("algs", strings.Join(a.DPoPAlgorithms, " "))
	}
	return b.String()
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
