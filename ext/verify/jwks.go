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

// keySet is an issuer's JSON Web Key Set, fetched when first needed and
// kept for its max-age. One fetch at a time runs, on a goroutine of its own,
// and every request that needs it waits for that one, each within its own
// context; an expired set is still served while its refresh runs, and for
// up to maxStale while refreshes fail. A failed fetch is not tried again
// before a backoff that doubles with each failure (up to minRefresh), so an
// endpoint that fails is not asked once per request. A token naming a key
// the set lacks, or whose signature its key does not verify (a key rotated
// under the same id), fetches the set again, at most once a minRefresh, so
// that made-up tokens cannot make the server hammer the authorization
// server.
type keySet struct {
	hc                 *http.Client
	issuer             string
	minRefresh, maxAge time.Duration

	mu       sync.Mutex
	url      string            // the key set's URL; "" until discovered
	keys     []jose.JSONWebKey // the last set fetched
	have     bool              // keys holds a fetched set
	expires  time.Time         // when keys must be fetched again
	started  time.Time         // when the last fetch began (success or not)
	failures int               // fetches failed in a row
	retryAt  time.Time         // no fetch before it, after a failure
	lastErr  error             // the last failure, answered until retryAt
	inflight *flight           // the fetch under way, or nil
}

// flight is one fetch of the key set, shared by every request that waits
// for it.
type flight struct {
	done chan struct{} // closed when the fetch has ended
	err  error         // its error, set before done is closed
}

const (
	// maxStale is how long after its expiry a key set is still used while
	// every fetch of a new one fails.
	maxStale = 24 * time.Hour
	// fetchTimeout bounds one fetch (discovery included), whoever waits.
	fetchTimeout = 30 * time.Second
	// firstBackoff is the pause after a first failure; it doubles with
	// each failure in a row, up to minRefresh.
	firstBackoff = time.Second
)

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
// of the algorithm's type. A kid the set lacks fetches the set again (at
// most once a minRefresh).
func (s *keySet) lookup(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, error) {
	keys, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	found := match(keys, kid, alg)
	if len(found) == 0 {
		// A key the set did not have: the issuer may have rotated its keys.
		if keys, ok, err := s.refresh(ctx); err != nil {
			return nil, err
		} else if ok {
			found = match(keys, kid, alg)
		}
	}
	if len(found) == 0 {
		return nil, invalid("no key %q in the issuer's key set", kid)
	}
	return found, nil
}

// current returns the key set to verify with: the cached one while fresh;
// an expired one while its refresh runs (started here when none is and the
// backoff allows) or fails, up to maxStale; otherwise it waits, within ctx,
// for a fetch, or answers the last failure again until its backoff ends.
func (s *keySet) current(ctx context.Context) ([]jose.JSONWebKey, error) {
	s.mu.Lock()
	t := now()
	if s.have && t.Before(s.expires) {
		keys := s.keys
		s.mu.Unlock()
		return keys, nil
	}
	f := s.inflight
	if f == nil && !t.Before(s.retryAt) {
		f = s.start(t)
	}
	if s.have && t.Before(s.expires.Add(maxStale)) {
		keys := s.keys // stale: the fetch goes on without this request
		s.mu.Unlock()
		return keys, nil
	}
	if f == nil {
		err := s.lastErr
		s.mu.Unlock()
		return nil, err
	}
	s.mu.Unlock()
	return s.wait(ctx, f)
}

// refresh fetches the set again because a token's key is not in it or did
// not verify its signature, unless a fetch began less than minRefresh ago
// or a failure's backoff runs; a fetch under way is waited for instead. It
// reports whether the keys it returns are newer than the caller's.
func (s *keySet) refresh(ctx context.Context) ([]jose.JSONWebKey, bool, error) {
	s.mu.Lock()
	t := now()
	f := s.inflight
	if f == nil {
		if t.Sub(s.started) < s.minRefresh || t.Before(s.retryAt) {
			s.mu.Unlock()
			return nil, false, nil
		}
		f = s.start(t)
	}
	s.mu.Unlock()
	keys, err := s.wait(ctx, f)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, err
		}
		// The set could not be fetched: the token stays refused for the
		// reason it was, not for the authorization server's trouble.
		return nil, false, nil
	}
	return keys, true, nil
}

// start begins a fetch on a goroutine of its own; s.mu is held.
func (s *keySet) start(t time.Time) *flight {
	f := &flight{done: make(chan struct{})}
	s.inflight = f
	s.started = t
	go s.run(f)
	return f
}

// wait waits for f, or for ctx, and returns the keys f fetched.
func (s *keySet) wait(ctx context.Context, f *flight) ([]jose.JSONWebKey, error) {
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("verify: waiting for the issuer's key set: %w", context.Cause(ctx))
	}
	if f.err != nil {
		return nil, f.err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys, nil
}

// run fetches the set for f and records the outcome.
func (s *keySet) run(f *flight) {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	keys, ttl, err := s.fetch(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := now()
	if err != nil {
		s.failures++
		s.retryAt = t.Add(min(firstBackoff<<min(s.failures-1, 20), s.minRefresh))
		s.lastErr = err
	} else {
		s.keys, s.have, s.expires = keys, true, t.Add(ttl)
		s.failures, s.retryAt, s.lastErr = 0, time.Time{}, nil
	}
	f.err = err
	s.inflight = nil
	close(f.done)
}

func match(keys []jose.JSONWebKey, kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range keys {
		if kid != "" && k.KeyID != kid || k.Algorithm != "" && k.Algorithm != alg {
			continue
		}
		out = append(out, k)
	}
	return out
}

// fetch gets the key set (finding its URL first when none was given) and
// how long it may be kept.
func (s *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, time.Duration, error) {
	s.mu.Lock()
	u := s.url
	s.mu.Unlock()
	if u == "" {
		var err error
		if u, err = s.discover(ctx); err != nil {
			return nil, 0, fmt.Errorf("verify: the issuer's key set: %w", err)
		}
		s.mu.Lock()
		s.url = u
		s.mu.Unlock()
	}
	resp, err := s.get(ctx, u)
	if err != nil {
		return nil, 0, fmt.Errorf("verify: the issuer's key set: %w", err)
	}
	defer resp.Body.Close()
	var set jose.JSONWebKeySet
	if err := decodeJSON(resp, &set); err != nil {
		return nil, 0, fmt.Errorf("verify: the key set at %s: %v", u, err)
	}
	var keys []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.Valid() && k.IsPublic() && (k.Use == "" || k.Use == "sig") {
			keys = append(keys, k)
		}
	}
	return keys, maxAge(resp.Header.Get("Cache-Control"), s.maxAge), nil
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
