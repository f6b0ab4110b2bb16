package verify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// testIssuer is an authorization server's metadata and key set on a test
// server, with keys that can be rotated.
type testIssuer struct {
	ts   *httptest.Server
	mu   sync.Mutex
	keys map[string]*ecdsa.PrivateKey // by kid, the published ones
	gets int                          // key set fetches
}

func newTestIssuer(t *testing.T) *testIssuer {
	is := &testIssuer{keys: map[string]*ecdsa.PrivateKey{}}
	is.rotate("k1")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.ts.URL, "jwks_uri": is.ts.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		defer is.mu.Unlock()
		is.gets++
		var set jose.JSONWebKeySet
		for kid, k := range is.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
		}
		w.Header().Set("Cache-Control", "max-age=600")
		json.NewEncoder(w).Encode(set)
	})
	is.ts = httptest.NewServer(mux)
	t.Cleanup(is.ts.Close)
	return is
}

// rotate publishes a new key kid and withdraws the others.
func (is *testIssuer) rotate(kid string) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.mu.Lock()
	is.keys = map[string]*ecdsa.PrivateKey{kid: k}
	is.mu.Unlock()
}

func (is *testIssuer) key(kid string) *ecdsa.PrivateKey {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.keys[kid]
}

// claims returns good claims for audience: issued now, expiring in an hour.
func (is *testIssuer) claims(aud string, scopes string) map[string]any {
	return map[string]any{"iss": is.ts.URL, "sub": "alice", "aud": aud, "exp": time.Now().Add(time.Hour).Unix(),
		"iat": time.Now().Unix(), "scope": scopes, "client_id": "app"}
}

// sign signs claims with key (kid in the header, typ at+jwt).
func sign(t *testing.T, key any, kid string, alg jose.SignatureAlgorithm, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
