package verify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

const resource = "https://mcp.example.com/mcp"

// TestJWT: a good token gives its subject, scopes and expiry; every bad one
// is refused with ErrInvalidToken.
func TestJWT(t *testing.T) {
	is := newTestIssuer(t)
	v, err := NewJWT(JWTConfig{Issuer: is.ts.URL, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	good := is.claims(resource, "notes.read notes.write")
	ti, err := v.Verify(context.Background(), sign(t, is.key("k1"), "k1", jose.ES256, good), nil)
	if err != nil || ti.Subject != "alice" || !slices.Equal(ti.Scopes, []string{"notes.read", "notes.write"}) || ti.Expiry.IsZero() {
		t.Fatalf("good token: %+v, %v", ti, err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	with := func(k string, v any) map[string]any {
		c := is.claims(resource, "notes.read")
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}, nil)
	hsTok, _ := hs.Sign([]byte(`{"iss":"x"}`))
	hsStr, _ := hsTok.CompactSerialize()
	for name, tok := range map[string]string{
		"expired":        sign(t, is.key("k1"), "k1", jose.ES256, with("exp", time.Now().Add(-time.Minute).Unix())),
		"no exp":         sign(t, is.key("k1"), "k1", jose.ES256, with("exp", nil)),
		"not yet valid":  sign(t, is.key("k1"), "k1", jose.ES256, with("nbf", time.Now().Add(time.Hour).Unix())),
		"wrong audience": sign(t, is.key("k1"), "k1", jose.ES256, with("aud", "https://other.example.com")),
		"other resource": sign(t, is.key("k1"), "k1", jose.ES256, with("aud", "https://mcp.example.com/other")),
		"wrong issuer":   sign(t, is.key("k1"), "k1", jose.ES256, with("iss", "https://evil.example.com")),
		"issuer variant": sign(t, is.key("k1"), "k1", jose.ES256, with("iss", is.ts.URL+"/")),
		"bad signature":  sign(t, other, "k1", jose.ES256, good),
		"unknown key":    sign(t, other, "k9", jose.ES256, good),
		"HS256":          hsStr,
		"not a JWT":      "opaque-token",
		"bound to a key": sign(t, is.key("k1"), "k1", jose.ES256, with("cnf", map[string]string{"jkt": "x"})),
		"tampered":       strings.Replace(sign(t, is.key("k1"), "k1", jose.ES256, good), ".", ".e", 1),
		"oversized":      strings.Repeat("a", maxToken+1),
	} {
		if _, err := v.Verify(context.Background(), tok, nil); !errors.Is(err, mcphttp.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
}

func TestNewJWTRefusesSymmetric(t *testing.T) {
	if _, err := NewJWT(JWTConfig{Issuer: "https://a", Audience: resource, Algorithms: []string{"HS256"}}); err == nil {
		t.Error("HS256 accepted")
	}
	if _, err := NewJWT(JWTConfig{Issuer: "https://a"}); err == nil {
		t.Error("no audience accepted")
	}
}
