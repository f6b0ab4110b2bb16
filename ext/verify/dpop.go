package verify

import (
	"context"
	"crypto"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// DPoPConfig makes a verifier take DPoP-bound access tokens (RFC 9449):
// tokens presented as "Authorization: DPoP <token>" with a DPoP proof
// header, whose cnf.jkt names the key of the proof. Set the verifier's
// DPoPAlgorithms as mcphttp.Auth.DPoPAlgorithms, so the handler takes the
// scheme and offers it in its challenges.
type DPoPConfig struct {
	// Algorithms are the proofs' JWS algorithms accepted, asymmetric only;
	// nil means ES256, ES384, ES512, EdDSA, PS256, PS384, PS512 and RS256.
	Algorithms []string
	// Window is how far a proof's iat may be from the server's clock,
	// either way; 0 means 5 minutes. A proof is accepted once within it.
	Window time.Duration
	// Nonce makes the server require a nonce of its own in every proof
	// (RFC 9449 §9): a proof without one, or with one older than
	// NonceLifetime (0: 5 minutes), is answered 401 use_dpop_nonce with a
	// fresh nonce in DPoP-Nonce. NonceKey (at least 32 bytes) makes the
	// nonces, so replicas that share it take each other's; nil means a
	// random key of this process.
	Nonce         bool
	NonceLifetime time.Duration
	NonceKey      []byte
	// Replay remembers the proofs accepted during the window, so that each
	// is accepted once; nil means NewMemoryReplayCache(0, 0). Replicas
	// behind a load balancer need one they share to refuse a replay sent
	// to another replica.
	Replay ReplayCache
	// URL returns the URL a request was sent to, as the client wrote it
	// (the proof's htu must be it, query and fragment aside); nil means the
	// scheme and host of the verifier's audience with the request's path,
	// which suits a server reached at its audience's origin.
	URL func(r *http.Request) string
}

var defaultDPoPAlgorithms = []string{"ES256", "ES384", "ES512", "EdDSA", "PS256", "PS384", "PS512", "RS256"}

// maxProof bounds the size of a DPoP proof looked at.
const maxProof = 8 << 10

// dpopChecker checks the DPoP proofs of the requests a verifier sees.
type dpopChecker struct {
	algs     []jose.SignatureAlgorithm
	names    []string
	window   time.Duration
	nonces   *nonceMaker // nil without Nonce
	replay   ReplayCache
	url      func(r *http.Request) string
	audience *url.URL
}

func newDPoPChecker(cfg *DPoPConfig, audience string) (*dpopChecker, error) {
	c := &dpopChecker{window: cfg.Window, replay: cfg.Replay, url: cfg.URL, names: cfg.Algorithms}
	if c.names == nil {
		c.names = defaultDPoPAlgorithms
	}
	for _, a := range c.names {
		switch {
		case a == "none" || strings.HasPrefix(a, "HS"):
			return nil, fmt.Errorf("verify: the algorithm %s is not an asymmetric one: DPoP proofs cannot use it", a)
		}
		c.algs = append(c.algs, jose.SignatureAlgorithm(a))
	}
	if c.window <= 0 {
		c.window = 5 * time.Minute
	}
	if c.replay == nil {
		c.replay = NewMemoryReplayCache(0, 0)
	}
	if cfg.Nonce {
		n, err := newNonceMaker(cfg.NonceKey, cfg.NonceLifetime)
		if err != nil {
			return nil, err
		}
		c.nonces = n
	}
	u, err := url.Parse(audience)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("verify: the audience %q is no URL, and DPoPConfig.URL is nil", audience)
	}
	c.audience = u
	return c, nil
}

// requestScheme returns the scheme of r's Authorization header.
func requestScheme(r *http.Request) string {
	if r == nil {
		return ""
	}
	scheme, _, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	return scheme
}

// bound checks a token presented to r against its confirmation claim cnf
// (nil when it has none): a DPoP-bound token (cnf.jkt) must come with the
// DPoP scheme and a valid proof of its key, and the DPoP scheme with a
// DPoP-bound token. c is nil when the verifier takes no DPoP.
func (c *dpopChecker) bound(ctx context.Context, r *http.Request, token string, cnf any) error {
	dpop := strings.EqualFold(requestScheme(r), "DPoP")
	if cnf == nil {
		if dpop {
			return dpopError("invalid_token", "the token is not bound to a DPoP key: present it as a bearer token")
		}
		return nil
	}
	m, _ := cnf.(map[string]any)
	jkt, _ := m["jkt"].(string)
	switch {
	case c == nil || jkt == "":
		// A sender-constrained token (DPoP, mTLS) is worthless without its
		// proof, which this verifier does not check.
		return invalid("the token is bound to a key (cnf); it is no bearer token")
	case !dpop:
		// RFC 9449 §7.2: a DPoP-bound token is no bearer token.
		return dpopError("invalid_token", "the token is DPoP-bound: present it with the DPoP scheme and a proof")
	}
	return c.check(ctx, r, token, jkt)
}

// check runs the checks of RFC 9449 §4.3 on r's DPoP proof, presented with
// the access token token bound to the key whose thumbprint is jkt, and
// records the proof so that it is accepted once.
func (c *dpopChecker) check(ctx context.Context, r *http.Request, token, jkt string) error {
	values := r.Header.Values("DPoP")
	switch {
	case len(values) == 0:
		return dpopError("invalid_dpop_proof", "no DPoP proof")
	case len(values) > 1:
		return dpopError("invalid_dpop_proof", "more than one DPoP header")
	case len(values[0]) > maxProof:
		return dpopError("invalid_dpop_proof", fmt.Sprintf("the proof is over %d bytes", maxProof))
	}
	p, err := c.parse(values[0])
	if err != nil {
		return err
	}
	if p.HTM != r.Method {
		return dpopError("invalid_dpop_proof", fmt.Sprintf("htm %q is not the request's method", p.HTM))
	}
	want, err := c.requestURL(r)
	if err != nil {
		return err
	}
	if got, err := normalizeHTU(p.HTU); err != nil || got != want {
		return dpopError("invalid_dpop_proof", fmt.Sprintf("htu %q is not the URL of the request", p.HTU))
	}
	t := now()
	iat := time.Unix(p.IAT, 0)
	if iat.Before(t.Add(-c.window)) || iat.After(t.Add(c.window)) {
		return dpopError("invalid_dpop_proof", fmt.Sprintf("iat is more than %s from the server's time", c.window))
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare([]byte(p.ATH), []byte(base64.RawURLEncoding.EncodeToString(sum[:]))) != 1 {
		return dpopError("invalid_dpop_proof", "ath is not the hash of the access token")
	}
	if subtle.ConstantTimeCompare([]byte(p.jkt), []byte(jkt)) != 1 {
		// RFC 9449 §7.1: a key binding that does not match is an
		// invalid token, not an invalid proof.
		return dpopError("invalid_token", "the token is not bound to the proof's key")
	}
	if c.nonces != nil && !c.nonces.valid(p.Nonce, t) {
		e := dpopError("use_dpop_nonce", "a nonce from the server is required in the proof")
		e.Header = http.Header{"Dpop-Nonce": {c.nonces.make(t)}}
		return e
	}
	seen, err := c.replay.Seen(ctx, p.jkt, p.JTI, iat.Add(c.window))
	switch {
	case errors.Is(err, ErrTooManyProofs):
		return dpopError("invalid_dpop_proof", "too many proofs of this key within the replay window: slow down")
	case err != nil:
		return fmt.Errorf("verify: the DPoP replay cache: %w", err)
	case seen:
		return dpopError("invalid_dpop_proof", "the proof was used before (jti)")
	}
	return nil
}

// proof is a DPoP proof's claims, and the thumbprint of its key.
type proof struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath"`
	Nonce string `json:"nonce"`
	jkt   string
}

// parse checks a proof's form, header and signature (RFC 9449 §4.3 steps
// 2 to 7) and returns its claims.
func (c *dpopChecker) parse(raw string) (*proof, error) {
	jws, err := jose.ParseSignedCompact(raw, c.algs)
	if err != nil {
		return nil, dpopError("invalid_dpop_proof", "not a compact JWS with an accepted algorithm ("+strings.Join(c.names, ", ")+"): "+err.Error())
	}
	h := jws.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !strings.EqualFold(typ, "dpop+jwt") {
		return nil, dpopError("invalid_dpop_proof", fmt.Sprintf("typ %q is not dpop+jwt", typ))
	}
	jwk := h.JSONWebKey
	if jwk == nil || !jwk.Valid() {
		return nil, dpopError("invalid_dpop_proof", "no public key (jwk) in the header")
	}
	if !jwk.IsPublic() {
		return nil, dpopError("invalid_dpop_proof", "the header's jwk holds a private key")
	}
	payload, err := jws.Verify(jwk.Key)
	if err != nil {
		return nil, dpopError("invalid_dpop_proof", "the signature does not verify with the header's jwk")
	}
	var p proof
	var claims map[string]json.RawMessage
	if json.Unmarshal(payload, &claims) != nil || json.Unmarshal(payload, &p) != nil {
		return nil, dpopError("invalid_dpop_proof", "the claims are not a JSON object of the expected types")
	}
	for _, name := range []string{"jti", "htm", "htu", "iat", "ath"} {
		if _, ok := claims[name]; !ok {
			return nil, dpopError("invalid_dpop_proof", "no "+name+" claim")
		}
	}
	if p.JTI == "" || len(p.JTI) > 256 {
		return nil, dpopError("invalid_dpop_proof", "jti is empty or over 256 bytes")
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, dpopError("invalid_dpop_proof", "the header's jwk has no thumbprint")
	}
	p.jkt = base64.RawURLEncoding.EncodeToString(tp)
	return &p, nil
}

// requestURL returns the normalized URL r was sent to.
func (c *dpopChecker) requestURL(r *http.Request) (string, error) {
	var raw string
	if c.url != nil {
		raw = c.url(r)
	} else {
		raw = (&url.URL{Scheme: c.audience.Scheme, Host: c.audience.Host, Path: r.URL.Path, RawPath: r.URL.RawPath}).String()
	}
	u, err := normalizeHTU(raw)
	if err != nil {
		return "", fmt.Errorf("verify: the request's URL %q: %w", raw, err)
	}
	return u, nil
}

// dpopError returns a refusal answered with a DPoP challenge carrying code
// (RFC 9449 §7.1).
func dpopError(code, desc string) *mcphttp.ChallengeError {
	return &mcphttp.ChallengeError{Scheme: "DPoP", Code: code, Description: desc, Err: mcphttp.ErrInvalidToken}
}

// DPoPAlgorithms returns the DPoP proof algorithms v accepts, to set as
// mcphttp.Auth.DPoPAlgorithms; nil without JWTConfig.DPoP.
func (v *JWT) DPoPAlgorithms() []string {
	if v.dpop == nil {
		return nil
	}
	return v.dpop.names
}
