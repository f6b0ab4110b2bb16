// Command authserver is a development OAuth 2.1 authorization server for
// trying the authnotes example (and the end-to-end test that runs it), built
// on github.com/ory/fosite: authorization code with PKCE (S256 only),
// refresh tokens (with offline_access), JWT access tokens signed with RS256
// whose audience is the resource the client named (RFC 8707), the iss
// parameter in authorization responses (RFC 9207), metadata (RFC 8414), a
// key set, and Dynamic Client Registration (RFC 7591) of public clients. The
// login page takes the users given with --user and lets them choose the
// scopes they consent to. It keeps everything in memory: not for production.
//
//	authserver --addr 127.0.0.1:8080 --user alice:wonderland --scopes "notes.read notes.write"
//
// It prints its issuer URL as its first line on stdout and stops on SIGINT
// or SIGTERM.
package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/storage"
	"github.com/ory/fosite/token/jwt"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
)

type userList map[string]string

func (u userList) String() string { return fmt.Sprint(len(u), " users") }
func (u userList) Set(v string) error {
	name, pass, ok := strings.Cut(v, ":")
	if !ok || name == "" {
		return fmt.Errorf("want NAME:PASSWORD")
	}
	u[name] = pass
	return nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	users := userList{}
	flag.Var(users, "user", "a user who may log in, NAME:PASSWORD (repeatable)")
	scopes := flag.String("scopes", "notes.read notes.write", "the scopes clients may ask for (offline_access is added)")
	ttl := flag.Duration("token-ttl", time.Hour, "access token lifetime")
	flag.Parse()
	if len(users) == 0 {
		fmt.Fprintln(os.Stderr, "authserver: give at least one --user NAME:PASSWORD")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "authserver:", err)
		os.Exit(1)
	}
	issuer := "http://" + ln.Addr().String()
	as, err := newServer(issuer, users, append(strings.Fields(*scopes), "offline_access"), *ttl)
	if err != nil {
		fmt.Fprintln(os.Stderr, "authserver:", err)
		os.Exit(1)
	}
	hs := &http.Server{Handler: as.routes(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	mcphttp.PromptShutdown(hs) // a connection dialled and never used does not hold Shutdown
	fmt.Println(issuer)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		hs.Shutdown(context.Background())
	}()
	if err := hs.Serve(ln); err != http.ErrServerClosed {
		slog.Error("authserver", "err", err)
		os.Exit(1)
	}
}

// server is the authorization server: fosite's provider over its memory
// store, plus the pages and documents fosite leaves to its user.
type server struct {
	issuer   string
	users    userList
	scopes   []string
	key      *rsa.PrivateKey
	provider fosite.OAuth2Provider
	store    *clients
}

func newServer(issuer string, users userList, scopes []string, ttl time.Duration) (*server, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	config := &fosite.Config{
		AccessTokenLifespan:            ttl,
		AuthorizeCodeLifespan:          5 * time.Minute,
		RefreshTokenLifespan:           24 * time.Hour,
		GlobalSecret:                   secret,
		EnforcePKCE:                    true,
		EnablePKCEPlainChallengeMethod: false,
		AccessTokenIssuer:              issuer,
		ScopeStrategy:                  fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:       fosite.ExactAudienceMatchingStrategy,
		RefreshTokenScopes:             []string{"offline_access"},
	}
	config.JWTScopeClaimKey = jwt.JWTScopeFieldString // "scope": "a b", as RFC 9068 has it
	store := &clients{MemoryStore: storage.NewMemoryStore(), byID: map[string]fosite.Client{}}
	keyGetter := func(context.Context) (any, error) { return key, nil }
	strategy := compose.NewOAuth2JWTStrategy(keyGetter, compose.NewOAuth2HMACStrategy(config), config)
	provider := compose.Compose(config, store, strategy,
		compose.OAuth2AuthorizeExplicitFactory, compose.OAuth2RefreshTokenGrantFactory, compose.OAuth2PKCEFactory)
	return &server{issuer: issuer, users: users, scopes: scopes, key: key, provider: provider, store: store}, nil
}
