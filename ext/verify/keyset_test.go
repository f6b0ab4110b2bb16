package verify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

// fakeJWKS is an authorization server's metadata and key set served in
// memory (no sockets, so that it runs in a synctest bubble): it counts the
// key set's fetches, and can answer slowly or with an error.
type fakeJWKS struct {
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey // published, by kid
	status  int                          // the key set's answer: 200, or an error
	delay   time.Duration                // before it answers
	maxAge  int                          // its Cache-Control max-age, in seconds
	fetches int
}

const fakeIssuer = "https://as.example"

func newFakeJWKS() *fakeJWKS {
	f := &fakeJWKS{keys: map[string]*ecdsa.PrivateKey{}, status: 200, maxAge: 600}
	f.publish("k1")
	return f
}

// publish puts a new key under kid, replacing the set.
func (f *fakeJWKS) publish(kid string) *ecdsa.PrivateKey {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = map[string]*ecdsa.PrivateKey{kid: k}
	return k
}

func (f *fakeJWKS) set(status int, delay time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status, f.delay = status, delay
}

func (f *fakeJWKS) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetches
}

func (f *fakeJWKS) key(kid string) *ecdsa.PrivateKey {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.keys[kid]
}

func (f *fakeJWKS) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		json.NewEncoder(rec).Encode(map[string]string{"issuer": fakeIssuer, "jwks_uri": fakeIssuer + "/jwks"})
	case "/jwks":
		f.mu.Lock()
		f.fetches++
		status, delay := f.status, f.delay
		var set jose.JSONWebKeySet
		for kid, k := range f.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
		}
		maxAge := f.maxAge
		f.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return nil, r.Context().Err()
			}
		}
		if status != 200 {
			rec.WriteHeader(status)
			break
		}
		rec.Header().Set("Cache-Control", "max-age="+strconv.Itoa(maxAge))
		json.NewEncoder(rec).Encode(set)
	default:
		rec.WriteHeader(404)
	}
	return rec.Result(), nil
}

// verifier returns a JWT verifier of f's issuer, fetching through f.
func (f *fakeJWKS) verifier(t *testing.T, cfg JWTConfig) *JWT {
	t.Helper()
	cfg.Issuer, cfg.Audience, cfg.HTTPClient = fakeIssuer, resource, &http.Client{Transport: f}
	v, err := NewJWT(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// goodToken returns a good token signed with key under kid, valid for an hour
// from now (the bubble's now).
func goodToken(t *testing.T, key *ecdsa.PrivateKey, kid string) string {
	return sign(t, key, kid, jose.ES256, map[string]any{"iss": fakeIssuer, "sub": "alice", "aud": resource,
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
}

// TestKeySetFailureBackoff: once the cached set has expired and the
// endpoint answers 500, requests are served with the expired set and the
// endpoint is asked again only after a backoff that doubles (it was asked
// once per request: 300 requests, 300 fetches); with no set at all,
// requests fail fast with the last error until the backoff ends.
func TestKeySetFailureBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeJWKS()
		f.maxAge = 60
		v := f.verifier(t, JWTConfig{})
		good := goodToken(t, f.key("k1"), "k1")
		if _, err := v.Verify(t.Context(), good, nil); err != nil {
			t.Fatal(err)
		}
		f.set(500, 0)
		time.Sleep(61 * time.Second) // the set has expired
		good = goodToken(t, f.key("k1"), "k1")
		for i := range 300 {
			if _, err := v.Verify(t.Context(), good, nil); err != nil {
				t.Fatalf("request %d with an expired set and a failing endpoint: %v", i, err)
			}
			synctest.Wait() // the refresh it started has ended
		}
		if n := f.count(); n != 2 {
			t.Fatalf("%d fetches for 300 requests, want 2 (the first, one refresh)", n)
		}
		// The backoff doubles: 1 s, 2 s, 4 s...
		for _, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
			time.Sleep(wait - time.Millisecond)
			v.Verify(t.Context(), good, nil)
			synctest.Wait()
			before := f.count()
			time.Sleep(time.Millisecond)
			v.Verify(t.Context(), good, nil)
			synctest.Wait()
			if got := f.count(); got != before+1 {
				t.Fatalf("after %s of backoff: %d fetches, want %d", wait, got, before+1)
			}
		}
		// The endpoint is back: the next refresh takes, and the set is fresh.
		f.set(200, 0)
		time.Sleep(8 * time.Second)
		v.Verify(t.Context(), good, nil)
		synctest.Wait()
		n := f.count()
		for range 10 {
			v.Verify(t.Context(), good, nil)
		}
		if got := f.count(); got != n {
			t.Errorf("%d fetches after a good one, want none", got-n)
		}

		// No set yet and a failing endpoint: one fetch, then the same
		// error answered at once until the backoff ends.
		cold := f.verifier(t, JWTConfig{})
		f.set(500, 0)
		n = f.count()
		for range 300 {
			if _, err := cold.Verify(t.Context(), good, nil); err == nil {
				t.Fatal("verified with no key set")
			}
		}
		if got := f.count() - n; got != 1 {
			t.Errorf("no set, failing endpoint: %d fetches for 300 requests, want 1", got)
		}
	})
}

// TestKeySetSlowEndpoint: requests that need the set wait together for one
// fetch, each no longer than its own context allows (they queued behind one
// lock: ten requests ended at 3, 6, ... 30 s); an expired set is served at
// once while its refresh runs.
func TestKeySetSlowEndpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeJWKS()
		f.maxAge = 60
		f.set(500, 3*time.Second) // slow, and failing
		v := f.verifier(t, JWTConfig{})
		good := goodToken(t, f.key("k1"), "k1")

		ends := func(v *JWT, timeout time.Duration) []time.Duration {
			start := time.Now()
			out := make([]time.Duration, 10)
			var wg sync.WaitGroup
			for i := range out {
				wg.Go(func() {
					ctx := t.Context()
					if i == 9 && timeout > 0 {
						var cancel context.CancelFunc
						ctx, cancel = context.WithTimeout(ctx, timeout)
						defer cancel()
					}
					v.Verify(ctx, good, nil)
					out[i] = time.Since(start)
				})
			}
			wg.Wait()
			return out
		}
		// No set: all wait for the one fetch, the impatient one gives up.
		got := ends(v, time.Second)
		for i, d := range got[:9] {
			if d != 3*time.Second {
				t.Errorf("request %d ended after %s, want 3s (one shared fetch)", i, d)
			}
		}
		if got[9] != time.Second {
			t.Errorf("the request with a 1 s deadline ended after %s", got[9])
		}
		if n := f.count(); n != 1 {
			t.Errorf("%d fetches, want 1", n)
		}
		synctest.Wait()

		// A set fetched, then expired; the endpoint slow: the expired set
		// is served at once while one refresh runs.
		f.set(200, 3*time.Second)
		time.Sleep(time.Second) // the backoff after the failure
		if _, err := v.Verify(t.Context(), good, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(61 * time.Second)
		n := f.count()
		for i, d := range ends(v, 0) {
			if d != 0 {
				t.Errorf("request %d waited %s for a refresh while an expired set was there", i, d)
			}
		}
		synctest.Wait()
		if got := f.count() - n; got != 1 {
			t.Errorf("%d refreshes, want 1", got)
		}
		time.Sleep(3 * time.Second) // the refresh ends
		synctest.Wait()
		n = f.count()
		ends(v, 0)
		if got := f.count() - n; got != 0 {
			t.Errorf("%d fetches with a fresh set, want 0", got)
		}
	})
}

// TestKeyRotatedUnderSameKid: a key replaced under the same key id is seen
// at the first token its new key signs (it was refused until the cached set
// expired, up to an hour), but tokens signed by a key the issuer never had
// fetch the set at most once a MinRefresh, whether they name a known key
// id or a made-up one.
func TestKeyRotatedUnderSameKid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFakeJWKS()
		v := f.verifier(t, JWTConfig{MinRefresh: time.Minute})
		if _, err := v.Verify(t.Context(), goodToken(t, f.key("k1"), "k1"), nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		rotated := f.publish("k1")
		if _, err := v.Verify(t.Context(), goodToken(t, rotated, "k1"), nil); err != nil {
			t.Fatalf("a key rotated under the same kid: %v", err)
		}
		if n := f.count(); n != 2 {
			t.Errorf("%d fetches, want 2 (the first, the rotation)", n)
		}
		forger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		for _, kid := range []string{"k1", "made-up", "k1", "other"} {
			for range 10 {
				if _, err := v.Verify(t.Context(), goodToken(t, forger, kid), nil); !errors.Is(err, mcphttp.ErrInvalidToken) {
					t.Fatalf("a forged token (kid %s): %v, want ErrInvalidToken", kid, err)
				}
			}
		}
		if n := f.count(); n != 2 {
			t.Errorf("forged tokens within MinRefresh of the last fetch: %d fetches, want 2", n)
		}
		time.Sleep(time.Minute)
		for range 10 {
			v.Verify(t.Context(), goodToken(t, forger, "made-up"), nil)
		}
		if n := f.count(); n != 3 {
			t.Errorf("forged tokens a MinRefresh later: %d fetches, want 3", n)
		}
		// A new kid is seen too, once a MinRefresh allows.
		time.Sleep(time.Minute)
		k2 := f.publish("k2")
		if _, err := v.Verify(t.Context(), goodToken(t, k2, "k2"), nil); err != nil {
			t.Errorf("a new key id: %v", err)
		}
	})
}
