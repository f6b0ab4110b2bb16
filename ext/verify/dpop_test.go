package verify

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// dpopClient makes DPoP proofs with its key, any part of which a case can
// spoil.
type dpopClient struct {
	key *ecdsa.PrivateKey
	jkt string
}

func newDPoPClient() *dpopClient {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tp, _ := (&jose.JSONWebKey{Key: &k.PublicKey}).Thumbprint(crypto.SHA256)
	return &dpopClient{key: k, jkt: base64.RawURLEncoding.EncodeToString(tp)}
}

// proofOpts spoils a proof: claims to set (nil deletes), the header's
// typ, a key to sign with instead of the embedded one's, the private key
// embedded, an algorithm.
type proofOpts struct {
	claims  map[string]any
	typ     string
	signer  *ecdsa.PrivateKey
	private bool
	hs256   bool
}

func (c *dpopClient) proof(t *testing.T, method, htu, token string, o proofOpts) string {
	t.Helper()
	sum := sha256.Sum256([]byte(token))
	claims := map[string]any{"jti": base64.RawURLEncoding.EncodeToString(randomBytes(16)), "htm": method, "htu": htu,
		"iat": time.Now().Unix(), "ath": base64.RawURLEncoding.EncodeToString(sum[:])}
	for k, v := range o.claims {
		if v == nil {
			delete(claims, k)
		} else {
			claims[k] = v
		}
	}
	typ := "dpop+jwt"
	if o.typ != "" {
		typ = o.typ
	}
	var jwk jose.JSONWebKey
	if o.private {
		jwk = jose.JSONWebKey{Key: c.key}
	} else {
		jwk = jose.JSONWebKey{Key: &c.key.PublicKey}
	}
	signing := jose.SigningKey{Algorithm: jose.ES256, Key: c.key}
	if o.signer != nil {
		signing.Key = o.signer
	}
	if o.hs256 {
		signing = jose.SigningKey{Algorithm: jose.HS256, Key: []byte("0123456789abcdef0123456789abcdef")}
	}
	opts := (&jose.SignerOptions{}).WithType(jose.ContentType(typ)).WithHeader("jwk", jwk)
	s, err := jose.NewSigner(signing, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rsaProof returns a proof whose header's jwk is an RSA key of bits bits,
// made up, signed with random bytes of its size. The client picks a
// proof's key, and its size sets the cost of checking the signature; the
// 8 KiB a proof may take leave room for some 24,000 bits. go-jose refuses
// moduli over jose.MaxRSAModulusBits (4096) when it reads the jwk, before
// any RSA operation.
func rsaProof(bits int) string {
	n := randomBytes(bits / 8)
	n[0] |= 0x80
	n[len(n)-1] |= 1
	b64 := base64.RawURLEncoding.EncodeToString
	h, _ := json.Marshal(map[string]any{"alg": "RS256", "typ": "dpop+jwt", "jwk": map[string]string{"kty": "RSA", "n": b64(n), "e": "AQAB"}})
	claims := `{"jti":"j","htm":"POST","htu":"` + resource + `","iat":0,"ath":""}`
	return b64(h) + "." + b64([]byte(claims)) + "." + b64(randomBytes(bits/8))
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// boundToken returns a token of f's issuer bound to the key jkt.
func (f *fakeJWKS) boundToken(t *testing.T, jkt string) string {
	c := map[string]any{"iss": fakeIssuer, "sub": "alice", "aud": resource, "exp": time.Now().Add(time.Hour).Unix(),
		"iat": time.Now().Unix(), "scope": "notes.read", "cnf": map[string]any{"jkt": jkt}}
	return sign(t, f.key("k1"), "k1", jose.ES256, c)
}

// request returns a request to the resource with the token under scheme
// and the proofs given.
func request(method, target, scheme, token string, proofs ...string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Header.Set("Authorization", scheme+" "+token)
	for _, p := range proofs {
		r.Header.Add("DPoP", p)
	}
	return r
}

// challengeCode returns the error code of err's challenge, "" when err is
// nil, and "invalid_token" for an error of no challenge of its own.
func challengeCode(err error) string {
	if err == nil {
		return ""
	}
	if ce, ok := errors.AsType[*mcphttp.ChallengeError](err); ok {
		return ce.Code
	}
	return "invalid_token"
}

// TestDPoPProofChecks: each step of RFC 9449 §4.3 refuses a proof that
// fails it, with the error RFC 9449 §7.1 names, and a good proof is taken
// once.
func TestDPoPProofChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeJWKS()
		v := f.verifier(t, JWTConfig{DPoP: &DPoPConfig{}})
		c := newDPoPClient()
		token := f.boundToken(t, c.jkt)
		const htu = resource
		other := newDPoPClient()
		good := c.proof(t, "POST", htu, token, proofOpts{})
		if _, err := v.Verify(t.Context(), token, request("POST", "/mcp", "DPoP", token, good)); err != nil {
			t.Fatalf("a good proof: %v", err)
		}
		ctx := t.Context()
		for _, tc := range []struct {
			name string
			r    *http.Request
			code string
			why  string // in the error
		}{
			{"the same proof again", request("POST", "/mcp", "DPoP", token, good), "invalid_dpop_proof", "used before"},
			{"no proof", request("POST", "/mcp", "DPoP", token), "invalid_dpop_proof", "no DPoP proof"},
			{"two proofs", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{}), c.proof(t, "POST", htu, token, proofOpts{})), "invalid_dpop_proof", "more than one"},
			{"not a JWS", request("POST", "/mcp", "DPoP", token, "not.a.proof"), "invalid_dpop_proof", "not a compact JWS"},
			{"oversized", request("POST", "/mcp", "DPoP", token, strings.Repeat("a", maxProof+1)), "invalid_dpop_proof", "over"},
			{"typ jwt", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{typ: "JWT"})), "invalid_dpop_proof", "typ"},
			{"HS256", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{hs256: true})), "invalid_dpop_proof", "unexpected signature algorithm"},
			{"signed by another key than the jwk", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{signer: other.key})), "invalid_dpop_proof", "signature"},
			{"private key in the jwk", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{private: true})), "invalid_dpop_proof", "private parameters"},
			{"an RSA jwk of 8192 bits", request("POST", "/mcp", "DPoP", token, rsaProof(8192)), "invalid_dpop_proof", "unsupported key"},
			{"no jti", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"jti": nil}})), "invalid_dpop_proof", "no jti"},
			{"no htm", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"htm": nil}})), "invalid_dpop_proof", "no htm"},
			{"no htu", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"htu": nil}})), "invalid_dpop_proof", "no htu"},
			{"no iat", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"iat": nil}})), "invalid_dpop_proof", "no iat"},
			{"no ath", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"ath": nil}})), "invalid_dpop_proof", "no ath"},
			{"iat a string", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"iat": "now"}})), "invalid_dpop_proof", "expected types"},
			{"htm GET for a POST", request("POST", "/mcp", "DPoP", token, c.proof(t, "GET", htu, token, proofOpts{})), "invalid_dpop_proof", "htm"},
			{"htm in lower case", request("POST", "/mcp", "DPoP", token, c.proof(t, "post", htu, token, proofOpts{})), "invalid_dpop_proof", "htm"},
			{"htu of another path", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", "https://mcp.example.com/other", token, proofOpts{})), "invalid_dpop_proof", "htu"},
			{"htu of another host", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", "https://evil.example.com/mcp", token, proofOpts{})), "invalid_dpop_proof", "htu"},
			{"htu over http", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", "http://mcp.example.com/mcp", token, proofOpts{})), "invalid_dpop_proof", "htu"},
			{"iat 6 minutes old", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"iat": time.Now().Add(-6 * time.Minute).Unix()}})), "invalid_dpop_proof", "iat"},
			{"iat 6 minutes ahead", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"iat": time.Now().Add(6 * time.Minute).Unix()}})), "invalid_dpop_proof", "iat"},
			{"ath of another token", request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, "another", proofOpts{})), "invalid_dpop_proof", "ath"},
			{"a proof of another key", request("POST", "/mcp", "DPoP", token, other.proof(t, "POST", htu, token, proofOpts{})), "invalid_token", "not bound to the proof's key"},
			{"a bound token as a bearer token", request("POST", "/mcp", "Bearer", token, c.proof(t, "POST", htu, token, proofOpts{})), "invalid_token", "DPoP scheme"},
			{"an unbound token with the DPoP scheme", nil, "invalid_token", "not bound"},
		} {
			if tc.name == "an unbound token with the DPoP scheme" {
				unbound := goodToken(t, f.key("k1"), "k1")
				tc.r = request("POST", "/mcp", "DPoP", unbound, c.proof(t, "POST", htu, unbound, proofOpts{}))
				if _, err := v.Verify(ctx, unbound, tc.r); challengeCode(err) != tc.code || !strings.Contains(err.Error(), tc.why) {
					t.Errorf("%s: %v, want invalid_token", tc.name, err)
				}
				continue
			}
			_, err := v.Verify(ctx, token, tc.r)
			if got := challengeCode(err); got != tc.code || !errors.Is(err, mcphttp.ErrInvalidToken) || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("%s: %v (code %q), want %s for %q, wrapping ErrInvalidToken", tc.name, err, got, tc.code, tc.why)
			}
		}
		// Within the window and normalized, a proof is taken: iat 4
		// minutes old; htu with a query, a default port, upper case and
		// percent-encodings that normalize to the same URL.
		for name, p := range map[string]string{
			"iat 4 minutes old": c.proof(t, "POST", htu, token, proofOpts{claims: map[string]any{"iat": time.Now().Add(-4 * time.Minute).Unix()}}),
			"htu normalized":    c.proof(t, "POST", "HTTPS://MCP.Example.com:443/%6dcp/../mcp?x=1#f", token, proofOpts{}),
		} {
			if _, err := v.Verify(ctx, token, request("POST", "/mcp", "DPoP", token, p)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		// Without DPoPConfig a bound token is refused, whatever the scheme.
		plain := f.verifier(t, JWTConfig{})
		if _, err := plain.Verify(ctx, token, request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", htu, token, proofOpts{}))); !errors.Is(err, mcphttp.ErrInvalidToken) {
			t.Errorf("a verifier without DPoP took a DPoP-bound token: %v", err)
		}
	})
}

// TestDPoPNonce: with Nonce, a proof without the server's nonce is
// answered use_dpop_nonce with a fresh nonce in DPoP-Nonce; a proof with it
// is taken while the nonce is fresh; a nonce of another key or past its
// lifetime is answered with a new one. Replicas that share NonceKey take
// each other's nonces.
func TestDPoPNonce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeJWKS()
		key := randomBytes(32)
		v := f.verifier(t, JWTConfig{DPoP: &DPoPConfig{Nonce: true, NonceKey: key, NonceLifetime: time.Minute}})
		replica := f.verifier(t, JWTConfig{DPoP: &DPoPConfig{Nonce: true, NonceKey: key}})
		stranger := f.verifier(t, JWTConfig{DPoP: &DPoPConfig{Nonce: true}})
		c := newDPoPClient()
		token := f.boundToken(t, c.jkt)
		ctx := t.Context()
		nonceOf := func(err error) string {
			ce, ok := errors.AsType[*mcphttp.ChallengeError](err)
			if !ok || ce.Code != "use_dpop_nonce" || ce.Header.Get("DPoP-Nonce") == "" {
				t.Fatalf("%v: want use_dpop_nonce with a DPoP-Nonce", err)
			}
			return ce.Header.Get("DPoP-Nonce")
		}
		_, err := v.Verify(ctx, token, request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", resource, token, proofOpts{})))
		nonce := nonceOf(err)
		with := func() *http.Request {
			return request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", resource, token, proofOpts{claims: map[string]any{"nonce": nonce}}))
		}
		if _, err := v.Verify(ctx, token, with()); err != nil {
			t.Fatalf("with the nonce: %v", err)
		}
		if _, err := replica.Verify(ctx, token, with()); err != nil {
			t.Errorf("a replica sharing the key: %v", err)
		}
		_, err = stranger.Verify(ctx, token, with())
		nonceOf(err)
		_, err = v.Verify(ctx, token, request("POST", "/mcp", "DPoP", token, c.proof(t, "POST", resource, token, proofOpts{claims: map[string]any{"nonce": "made-up"}})))
		nonceOf(err)
		time.Sleep(61 * time.Second)
		_, err = v.Verify(ctx, token, with())
		if fresh := nonceOf(err); fresh == nonce {
			t.Error("an expired nonce was answered with itself")
		}
	})
}

// TestReplayCacheBounded: the replay cache keeps at most its size, a key
// past its share is refused with ErrTooManyProofs, and expired entries go.
func TestReplayCacheBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		rc := NewMemoryReplayCache(100, 60).(*memoryReplay)
		exp := time.Now().Add(time.Minute)
		for i := range 60 {
			if seen, err := rc.Seen(ctx, "a", string(rune('0'+i)), exp); seen || err != nil {
				t.Fatalf("proof %d of a: %v %v", i, seen, err)
			}
		}
		if _, err := rc.Seen(ctx, "a", "one more", exp); !errors.Is(err, ErrTooManyProofs) {
			t.Errorf("a's 61st proof: %v, want ErrTooManyProofs", err)
		}
		if seen, _ := rc.Seen(ctx, "a", "0", exp); !seen {
			t.Error("a replay was not seen")
		}
		for i := range 200 {
			rc.Seen(ctx, "b"+string(rune(i)), "x", exp)
		}
		if n := len(rc.seen); n > 100 {
			t.Errorf("%d entries kept, want at most 100", n)
		}
		time.Sleep(2 * time.Minute)
		if seen, err := rc.Seen(ctx, "c", "x", time.Now().Add(time.Minute)); seen || err != nil || len(rc.seen) != 1 || len(rc.keys) != 1 {
			t.Errorf("after expiry: %v %v, %d entries, %d keys; want only the new one", seen, err, len(rc.seen), len(rc.keys))
		}
	})
}

// TestDPoPOverHTTP: behind mcphttp.Auth with the verifier's algorithms, a
// refusal is a DPoP challenge naming the error, and a nonce the server
// wants comes in DPoP-Nonce.
func TestDPoPOverHTTP(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeJWKS()
		v := f.verifier(t, JWTConfig{DPoP: &DPoPConfig{Nonce: true, Algorithms: []string{"ES256"}}})
		h := mcphttp.NewHandler(newToolServer(), &mcphttp.Options{Auth: &mcphttp.Auth{Verify: v.Verify, DPoPAlgorithms: v.DPoPAlgorithms()}})
		defer h.Close()
		c := newDPoPClient()
		token := f.boundToken(t, c.jkt)
		send := func(proof string) *httptest.ResponseRecorder {
			r := request("POST", "/mcp", "DPoP", token, proof)
			r.Host = "mcp.example.com"
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			r.Header.Set("MCP-Protocol-Version", "2026-07-28")
			r.Header.Set("Mcp-Method", "tools/list")
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			r.Body, r.ContentLength = bodyOf(body), int64(len(body))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			return rec
		}
		rec := send(c.proof(t, "POST", resource, token, proofOpts{}))
		nonce := rec.Header().Get("DPoP-Nonce")
		if rec.Code != 401 || nonce == "" || rec.Header().Get("WWW-Authenticate") != `DPoP error="use_dpop_nonce", error_description="a nonce from the server is required in the proof", algs="ES256"` {
			t.Fatalf("no nonce: %d %q %q", rec.Code, rec.Header().Values("WWW-Authenticate"), nonce)
		}
		rec = send(c.proof(t, "POST", resource, token, proofOpts{claims: map[string]any{"nonce": nonce, "htm": "GET"}}))
		if rec.Code != 401 || !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), `DPoP error="invalid_dpop_proof", error_description="htm \"GET\" is not the request's method"`) {
			t.Errorf("bad htm: %d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
		}
		rec = send(c.proof(t, "POST", resource, token, proofOpts{claims: map[string]any{"nonce": nonce}}))
		if rec.Code != 200 {
			t.Errorf("a good proof with the nonce: %d %s %q", rec.Code, rec.Body, rec.Header().Values("WWW-Authenticate"))
		}
	})
}

// newToolServer returns an MCP server with one tool.
func newToolServer() *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "notes", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "list_notes", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	}})
	return srv
}

func bodyOf(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }
