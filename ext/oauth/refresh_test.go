package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestOfflineAccessAsksConsent: asking for offline_access, the client asks
// for consent too (prompt=consent), as OpenID Connect Core §11 requires;
// without it an OpenID provider drops offline_access and issues no refresh
// token. A server that does not offer offline_access gets neither.
func TestOfflineAccessAsksConsent(t *testing.T) {
	for _, offline := range []bool{true, false} {
		f := newFakeAS(t)
		f.noOffline = !offline
		a, _ := New(Config{RedirectURL: "http://127.0.0.1:1/cb", Browser: redirectBrowser})
		if err := a.Login(context.Background(), f.ts.URL+"/mcp"); err != nil {
			t.Fatal(err)
		}
		q := f.authQueries[0]
		scopes := strings.Fields(q.Get("scope"))
		if offline && (!strings.Contains(q.Get("scope"), "offline_access") || q.Get("prompt") != "consent") {
			t.Errorf("offline_access offered: scope %q, prompt %q; want offline_access asked with prompt=consent", scopes, q.Get("prompt"))
		}
		if !offline && (strings.Contains(q.Get("scope"), "offline_access") || q.Has("prompt")) {
			t.Errorf("offline_access not offered: scope %q, prompt %q; want neither", scopes, q.Get("prompt"))
		}
	}
}

// TestCloseWithExpiredToken: closing a client whose token the server no
// longer takes ends the session with a refreshed token when one can be had
// without the user, and otherwise gives up on the DELETE: it never starts
// an interactive login just to end a session (it did).
func TestCloseWithExpiredToken(t *testing.T) {
	for _, refreshable := range []bool{true, false} {
		t.Run(fmt.Sprint("refreshable=", refreshable), func(t *testing.T) {
			f := newFakeAS(t)
			var mcpURL string
			srv := mcpserver.New(mcp.Implementation{Name: "notes", Version: "1"}, nil)
			h := mcphttp.NewHandler(srv, &mcphttp.Options{Auth: &mcphttp.Auth{
				Verify: func(_ context.Context, token string, _ *http.Request) (*mcphttp.TokenInfo, error) {
					f.mu.Lock()
					defer f.mu.Unlock()
					if token != fmt.Sprint("at-", f.issued) {
						return nil, mcphttp.ErrInvalidToken
					}
					return &mcphttp.TokenInfo{Subject: "alice"}, nil
				},
			}})
			defer h.Close()
			mux := http.NewServeMux()
			mux.Handle("/mcp", h)
			ts := httptest.NewServer(mux)
			defer ts.Close()
			mcpURL = ts.URL + "/mcp"
			mux.Handle("/.well-known/oauth-protected-resource/mcp", mcphttp.ProtectedResourceMetadataHandler(mcphttp.ProtectedResourceMetadata{
				Resource: mcpURL, AuthorizationServers: []string{f.ts.URL}}))

			var logins atomic.Int32
			browser := func(ctx context.Context, u string) (url.Values, error) {
				logins.Add(1)
				return redirectBrowser(ctx, u)
			}
			a, _ := New(Config{RedirectURL: "http://127.0.0.1:1/cb", Browser: browser})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := mcphttpclient.Connect(ctx, mcpURL, &mcphttpclient.Options{Authorizer: a, MCP: mcpclient.Options{ProtocolVersion: "2025-11-25"}})
			if err != nil {
				t.Fatal(err)
			}
			if n := h.SessionCount(); n != 1 || logins.Load() != 1 {
				t.Fatalf("after Connect: %d sessions, %d logins; want 1 and 1", n, logins.Load())
			}
			// The token expires: the server takes it no more.
			a.mu.Lock()
			a.token.Expiry = time.Now().Add(-time.Minute)
			if !refreshable {
				a.token.RefreshToken = ""
			}
			a.mu.Unlock()
			f.mu.Lock()
			f.issued++ // the server wants a newer token than the client's
			tokenRequests := len(f.tokens)
			f.mu.Unlock()
			err = c.Close()
			if n := logins.Load(); n != 1 {
				t.Errorf("Close started %d logins", n-1)
			}
			f.mu.Lock()
			refreshes := len(f.tokens) - tokenRequests
			f.mu.Unlock()
			if refreshable {
				if err != nil || refreshes != 1 || h.SessionCount() != 0 {
					t.Errorf("Close: %v, %d refreshes, %d sessions left; want the token refreshed and the session ended", err, refreshes, h.SessionCount())
				}
			} else if err == nil || !strings.Contains(err.Error(), "401") || h.SessionCount() != 1 {
				t.Errorf("Close: %v, %d sessions; want an error naming the 401, the session left to expire", err, h.SessionCount())
			}
		})
	}
}

// memTransport sends requests to a handler in memory: no sockets, so that
// it runs in a synctest bubble.
type memTransport struct{ h http.Handler }

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// TestShortTokenRefreshMargin: a token is refreshed a tenth of its
// lifetime before it expires (at most 30 s before): a 30-second token
// serves 27 s of requests, then is refreshed once (it was refreshed before
// nearly every request, the margin being 30 s whatever the lifetime). An
// hour's token is refreshed 30 s before its end.
func TestShortTokenRefreshMargin(t *testing.T) {
	for _, tc := range []struct {
		lifetime, margin time.Duration
	}{{30 * time.Second, 3 * time.Second}, {10 * time.Second, time.Second}, {time.Hour, 30 * time.Second}} {
		f := newFakeAS(t)
		f.expiresS = int(tc.lifetime / time.Second)
		t.Run(tc.lifetime.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem := &http.Client{Transport: memTransport{f.ts.Config.Handler}}
				browser := func(ctx context.Context, u string) (url.Values, error) {
					req := httptest.NewRequest(http.MethodGet, u, nil)
					rec := httptest.NewRecorder()
					f.ts.Config.Handler.ServeHTTP(rec, req)
					loc, err := url.Parse(rec.Header().Get("Location"))
					if err != nil {
						return nil, err
					}
					return loc.Query(), nil
				}
				a, _ := New(Config{RedirectURL: "http://127.0.0.1:1/cb", Browser: browser, HTTPClient: mem})
				if err := a.Login(t.Context(), f.ts.URL+"/mcp"); err != nil {
					t.Fatal(err)
				}
				requests := func() int {
					f.mu.Lock()
					defer f.mu.Unlock()
					return len(f.tokens)
				}
				authorize := func() {
					req, _ := http.NewRequest(http.MethodPost, f.ts.URL+"/mcp", nil)
					if err := a.Authorize(req); err != nil {
						t.Fatal(err)
					}
				}
				start := time.Now()
				step := tc.margin / 2
				for time.Since(start)+step < tc.lifetime-tc.margin {
					authorize()
					time.Sleep(step)
				}
				if n := requests(); n != 1 {
					t.Fatalf("%d token requests within the first %s of a %s token, want 1 (the login)", n, time.Since(start), tc.lifetime)
				}
				time.Sleep(tc.lifetime - tc.margin - time.Since(start))
				authorize()
				if n := requests(); n != 2 {
					t.Errorf("%d token requests %s before the end of a %s token, want 2 (the login, a refresh)", n, tc.margin, tc.lifetime)
				}
			})
		})
	}
}
