package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// keySet is an issuer's JSON Web Key Set, fetched when first needed, kept
// for its max-age, and fetched again for a key id it does not hold (at most
// once a minRefresh, so that tokens naming made-up keys cannot make the
// server hammer the authorization server).
type keySet struct {
	hc                 *http.Client
	issuer, url        string
	minRefresh, maxAge time.Duration

	mu      sync.Mutex
	keys    []jose.JSONWebKey
	expires time.Time // when keys must be fetched again
	fetched time.Time // the last fetch (or failed try)
	fetches int       // for tests
}

func newKeySet(hc *http.Client, issuer, jwksURL string, minRefresh, maxAge time.Duration) *keySet {
	if minRefresh <= 0 {
		minRefresh = time.Minute
	}
	if maxAge <= 0 {
		maxAge = time.Hour
	}
	return &keySet{hc: hc, issuer: issuer, url: jwksURL, minRefresh: minRefresh, maxAge: maxAge}
}

// lookup returns the signing keys that may have signed a token whose header
// names kid and alg: the one with that kid, or, without a kid, every key
// of the algorithm's type.
func (s *keySet) lookup(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := now()
	if s.keys == nil || t.After(s.expires) {
		if err := s.fetch(ctx, t); err != nil && s.keys == nil {
			return nil, err
		}
	}
	found := s.match(kid, alg)
	if len(found) == 0 && t.Sub(s.fetched) >= s.minRefresh {
		// A key the set did not have: the issuer may have rotated its keys.
		if err := s.fetch(ctx, t); err != nil {
			return nil, err
		}
		found = s.match(kid, alg)
	}
	if len(found) == 0 {
		return nil, invalid("no key %q in the issuer's key set", kid)
	}
	return found, nil
}

func (s *keySet) match(kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range s.keys {
		if kid != "" && k.KeyID != kid || k.Algorithm != "" && k.Algorithm != alg {
			continue
		}
		out = append(out, k)
	}
	return out
}

// fetch gets the key set (finding its URL first when none was given).
func (s *keySet) fetch(ctx context.Context, t time.Time) error {
	s.fetched = t
	s.fetches++
	if s.url == "" {
		u, err := s.discover(ctx)
		if err != nil {
			return fmt.Errorf("verify: the issuer's key set: %w", err)
		}
		s.url = u
	}
	resp, err := s.get(ctx, s.url)
	if err != nil {
		return fmt.Errorf("verify: the issuer's key set: %w", err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := decodeJSON(resp, &set); err != nil {
		return fmt.Errorf("verify: the key set at %s: %v", s.url, err)
	}
	var keys []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.Valid() && k.IsPublic() && (k.Use == "" || k.Use == "sig") {
			keys = append(keys, k)
		}
	}
	s.keys = keys
	s.expires = t.Add(maxAge(resp.Header.Get("Cache-Control"), s.maxAge))
	return nil
}

// maxAge returns the max-age of a Cache-Control value, bounded to between
// a minute and a day, or def.
func maxAge(cc string, def time.Duration) time.Duration {
	for _, d := range strings.Split(cc, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(strings.ToLower(d)), "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return min(max(time.Duration(n)*time.Second, time.Minute), 24*time.Hour)
			}
		}
	}
	return def
}

// discover returns the jwks_uri of the issuer's metadata: RFC 8414 with
// the path inserted, then OpenID Connect discovery (inserted and appended);
// the document's issuer must be the issuer.
func (s *keySet) discover(ctx context.Context) (string, error) {
	id, err := url.Parse(s.issuer)
	if err != nil || id.Host == "" {
		return "", fmt.Errorf("the issuer %q is no URL", s.issuer)
	}
	path := strings.TrimSuffix(id.Path, "/")
	base := id.Scheme + "://" + id.Host
	tries := []string{base + "/.well-known/oauth-authorization-server" + path, base + "/.well-known/openid-configuration" + path}
	if path != "" {
		tries = append(tries, strings.TrimSuffix(s.issuer, "/")+"/.well-known/openid-configuration")
	}
	for _, u := range tries {
		resp, err := s.get(ctx, u)
		if errors.Is(err, errNotFound) {
			continue
		}
		if err != nil {
			return "", err
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		err = decodeJSON(resp, &md)
		resp.Body.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %v", u, err)
		}
		if md.Issuer != s.issuer {
			return "", fmt.Errorf("%s names the issuer %q, not %q", u, md.Issuer, s.issuer)
		}
		if md.JWKSURI == "" {
			return "", fmt.Errorf("%s has no jwks_uri", u)
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("no metadata for %s (tried %s)", s.issuer, strings.Join(tries, ", "))
}

var errNotFound = errors.New("not found")

func (s *keySet) get(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			return nil, fmt.Errorf("GET %s: HTTP %d: %w", u, resp.StatusCode, errNotFound)
		}
		return nil, fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return resp, nil
}
