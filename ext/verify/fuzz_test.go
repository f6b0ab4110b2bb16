package verify

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// FuzzJWT: any string given as an access token is refused with
// ErrInvalidToken, never a panic, whatever its header, claims or
// signature; the seeds (testdata/fuzz/FuzzJWT) include tokens signed by a
// key the issuer never had.
func FuzzJWT(f *testing.F) {
	jwks := newFakeJWKS()
	v, err := NewJWT(JWTConfig{Issuer: fakeIssuer, Audience: resource, HTTPClient: &http.Client{Transport: jwks}, DPoP: &DPoPConfig{}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "DPoP "+token)
		r.Header.Set("DPoP", token)
		for _, req := range []*http.Request{nil, r} {
			if _, err := v.Verify(context.Background(), token, req); !errors.Is(err, mcphttp.ErrInvalidToken) {
				t.Fatalf("%q: %v, want ErrInvalidToken", token, err)
			}
		}
	})
}

// jwksDoc serves one key set document.
type jwksDoc string

func (d jwksDoc) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	rec.Header().Set("Cache-Control", "max-age=60")
	rec.WriteString(string(d))
	return rec.Result(), nil
}

// FuzzJWKS: any key set document is read without a panic; a token signed
// by a key not in it is refused. Seeds in testdata/fuzz/FuzzJWKS.
func FuzzJWKS(f *testing.F) {
	forger := newFakeJWKS()
	var forged string
	f.Fuzz(func(t *testing.T, doc string) {
		v, err := NewJWT(JWTConfig{Issuer: fakeIssuer, Audience: resource, JWKSURL: fakeIssuer + "/jwks", HTTPClient: &http.Client{Transport: jwksDoc(doc)}})
		if err != nil {
			t.Fatal(err)
		}
		if forged == "" {
			forged = goodToken(t, forger.key("k1"), "k1")
		}
		if _, err := v.Verify(context.Background(), forged, nil); err == nil {
			t.Fatalf("a token of a key not in %q verified", doc)
		}
	})
}

// FuzzDPoPProof: any DPoP header sent with a good DPoP-bound token is
// refused with ErrInvalidToken, never a panic (a proof needs the client's
// key). Seeds in testdata/fuzz/FuzzDPoPProof.
func FuzzDPoPProof(f *testing.F) {
	jwks := newFakeJWKS()
	v, err := NewJWT(JWTConfig{Issuer: fakeIssuer, Audience: resource, HTTPClient: &http.Client{Transport: jwks}, DPoP: &DPoPConfig{Nonce: true}})
	if err != nil {
		f.Fatal(err)
	}
	var token string
	f.Fuzz(func(t *testing.T, proof string) {
		if token == "" {
			token = jwks.boundToken(t, newDPoPClient().jkt)
		}
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "DPoP "+token)
		r.Header.Set("DPoP", proof)
		if _, err := v.Verify(context.Background(), token, r); !errors.Is(err, mcphttp.ErrInvalidToken) {
			t.Fatalf("proof %q: %v, want ErrInvalidToken", proof, err)
		}
	})
}

// FuzzNormalizeHTU: normalizing a URL never panics, gives an http(s) URL
// without query or fragment, and is idempotent. Seeds in
// testdata/fuzz/FuzzNormalizeHTU.
func FuzzNormalizeHTU(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := normalizeHTU(raw)
		if err != nil {
			return
		}
		if !strings.HasPrefix(n, "https://") && !strings.HasPrefix(n, "http://") || strings.ContainsAny(n, "?#") {
			t.Fatalf("%q normalized to %q", raw, n)
		}
		if again, err := normalizeHTU(n); err != nil || again != n {
			t.Fatalf("%q normalized to %q, then to %q (%v)", raw, n, again, err)
		}
	})
}
