package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// JWTConfig configures a JWT verifier.
type JWTConfig struct {
	// Issuer is the authorization server's issuer identifier; a token's
	// iss must be exactly it. Required.
	Issuer string
	// Audience is this resource's identifier, the canonical URL of the MCP
	// endpoint (https://mcp.example.com/mcp): a token's aud must hold it,
	// so a token issued for another resource is refused. Required.
	Audience string
	// JWKSURL is the key set's URL; "" finds it as the jwks_uri of the
	// issuer's metadata (RFC 8414, then OpenID Connect discovery).
	JWKSURL string
	// Algorithms are the JWS algorithms accepted; nil means the asymmetric
	// ones: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512,
	// EdDSA. Symmetric ones and "none" are never accepted.
	Algorithms []string
	// Leeway is the clock skew allowed on exp, nbf and iat; 0 means 30
	// seconds, negative none.
	Leeway time.Duration
	// RequireATJWT refuses tokens whose typ is not at+jwt (RFC 9068 §2.1).
	// Without it a typ of another kind of JWT (dpop+jwt, an ID token's
	// JWT... ) is still refused unless it is JWT or absent.
	RequireATJWT bool
	// MinRefresh bounds how often a token the cached key set cannot verify
	// (a key id it lacks, or a signature its key of that id refuses: a key
	// rotated under the same id) fetches the set again, and is the longest
	// pause between retries while the endpoint fails; 0 means one minute.
	// MaxAge is how long a fetched set is kept when its response says
	// nothing (Cache-Control max-age); 0 means one hour.
	MinRefresh, MaxAge time.Duration
	// HTTPClient fetches the metadata and the key set; nil means a client
	// with a 10-second timeout.
	HTTPClient *http.Client
	// DPoP, when set, takes DPoP-bound tokens too (RFC 9449): see
	// DPoPConfig. Without it a token bound to a key (cnf) is refused.
	DPoP *DPoPConfig
}

// JWT verifies JWT access tokens for mcphttp.Auth.Verify.
type JWT struct {
	cfg  JWTConfig
	algs []jose.SignatureAlgorithm
	keys *keySet
	dpop *dpopChecker // nil without JWTConfig.DPoP
}

var defaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// NewJWT returns a verifier configured by cfg. The key set is fetched at
// the first token, not here.
func NewJWT(cfg JWTConfig) (*JWT, error) {
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, fmt.Errorf("verify: JWTConfig needs an Issuer and an Audience")
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	} else if cfg.Leeway < 0 {
		cfg.Leeway = 0
	}
	if cfg.Algorithms == nil {
		cfg.Algorithms = defaultAlgorithms
	}
	v := &JWT{cfg: cfg}
	for _, a := range cfg.Algorithms {
		switch a {
		case "none", "HS256", "HS384", "HS512":
			return nil, fmt.Errorf("verify: the algorithm %s is not safe for access tokens", a)
		}
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	v.keys = newKeySet(hc, cfg.Issuer, cfg.JWKSURL, cfg.MinRefresh, cfg.MaxAge)
	if cfg.DPoP != nil {
		d, err := newDPoPChecker(cfg.DPoP, cfg.Audience)
		if err != nil {
			return nil, err
		}
		v.dpop = d
	}
	return v, nil
}

// maxToken bounds the size of a token the verifier looks at.
const maxToken = 16 << 10

// now is the verifier's clock.
var now = time.Now

// Verify implements mcphttp.Auth.Verify. With JWTConfig.DPoP, a
// DPoP-bound token's proof is checked against r; r may be nil for bearer
// tokens only.
func (v *JWT) Verify(ctx context.Context, token string, r *http.Request) (*mcphttp.TokenInfo, error) {
	if len(token) > maxToken {
		return nil, invalid("the token is over %d bytes", maxToken)
	}
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, invalid("not a JWT signed with an accepted algorithm: %v", err)
	}
	h := tok.Headers[0]
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !v.typeOK(typ) {
		return nil, invalid("the token's typ %q is not an access token's", typ)
	}
	keys, err := v.keys.lookup(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var all map[string]any
	if !verifiedBy(tok, keys, &std, &all) {
		// The issuer may have rotated a key under the same id: the set is
		// fetched again (at most once a MinRefresh) and tried once more.
		fresh, refreshed, err := v.keys.refresh(ctx)
		if err != nil {
			return nil, err
		}
		if !refreshed || !verifiedBy(tok, match(fresh, h.KeyID, h.Algorithm), &std, &all) {
			return nil, invalid("no key of the issuer's verifies the signature")
		}
	}
	if std.Expiry == nil {
		return nil, invalid("the token has no exp")
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: now()}, v.cfg.Leeway); err != nil {
		return nil, invalid("%v (iss %q, aud %v)", err, std.Issuer, []string(std.Audience))
	}
	if cnf, ok := all["cnf"]; ok && (r == nil || v.dpop == nil) {
		// A sender-constrained token (DPoP, mTLS) is worthless without its
		// proof, which a bearer verifier does not check.
		return nil, invalid("the token is bound to a key (cnf); it is no bearer token")
	} else if err := v.dpop.bound(ctx, r, token, cnf); err != nil {
		return nil, err
	}
	sub := std.Subject
	if sub == "" {
		sub, _ = all["client_id"].(string)
	}
	return &mcphttp.TokenInfo{Subject: sub, Scopes: scopesOf(all), Expiry: std.Expiry.Time(), Extra: all}, nil
}

// verifiedBy reports whether one of keys verifies tok's signature, and
// then decodes its claims into std and all.
func verifiedBy(tok *jwt.JSONWebToken, keys []jose.JSONWebKey, std *jwt.Claims, all *map[string]any) bool {
	for _, k := range keys {
		if err := tok.Claims(k.Key, std, all); err == nil {
			return true
		}
	}
	return false
}

func (v *JWT) typeOK(typ string) bool {
	t := strings.ToLower(strings.TrimPrefix(strings.ToLower(typ), "application/"))
	if t == "at+jwt" {
		return true
	}
	return !v.cfg.RequireATJWT && (t == "" || t == "jwt")
}

// scopesOf reads the scope claim (a space-separated string, RFC 9068 §2.2.3)
// or scp (a list or a string, as some servers write it).
func scopesOf(claims map[string]any) []string {
	switch s := claims["scope"].(type) {
	case string:
		return strings.Fields(s)
	}
	switch s := claims["scp"].(type) {
	case string:
		return strings.Fields(s)
	case []any:
		var out []string
		for _, x := range s {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		return out
	}
	return nil
}

// invalid returns an error wrapping mcphttp.ErrInvalidToken.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", mcphttp.ErrInvalidToken, fmt.Sprintf(format, args...))
}

// decodeJSON decodes a JSON document of at most 1 MiB.
func decodeJSON(resp *http.Response, v any) error {
	return json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(v)
}
