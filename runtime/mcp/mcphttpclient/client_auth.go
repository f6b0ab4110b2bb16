package mcphttpclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// An Authorizer gives the client's HTTP requests their credentials and
// answers the server's authorization challenges, as the protocol's
// Authorization section has a client do: module
// github.com/rpcgen/rpcgen/ext/oauth implements the OAuth 2.1 flow (discovery,
// client registration, authorization code with PKCE, refresh, scope step-up,
// DPoP) as one. Set it as Options.Authorizer.
type Authorizer interface {
	// Authorize sets req's credentials, its Authorization header (and a
	// proof of possession such as a DPoP header), before each send, retries
	// included. A request it leaves alone goes out without credentials; an
	// error fails the request.
	Authorize(req *http.Request) error
	// Challenge is told that the server answered req with resp, a 401 or a
	// 403 (resp's body is not to be read; its header carries the
	// WWW-Authenticate challenge). It returns nil once it holds credentials
	// that are worth sending req again with (a new or refreshed token, one
	// with the scopes the challenge names, a server-supplied nonce), and an
	// error otherwise, which fails the request. ctx bounds the work, which
	// may include the user's login: a challenge during the handshake gets
	// Connect's context, later ones the call's. The DELETE that ends a
	// session at Close is not worth a login: its challenge is not passed on.
	Challenge(ctx context.Context, req *http.Request, resp *http.Response) error
}

// clientMaxChallenges bounds the challenges one request is sent again
// after (the protocol asks clients to limit step-up retries).
const clientMaxChallenges = 3

// challengeError carries a challenge the server answered a handshake
// request with, up to Connect, which answers it with its own context (a
// handshake request's context may be a short probe's) and connects again.
type challengeError struct {
	req  *http.Request
	resp *http.Response
}

func (e *challengeError) Error() string {
	return "mcphttp: the server requires authorization (HTTP " + clientStatus(e.resp) + ")"
}

// do sends req with the Authorizer's credentials, when there is one. A 401
// or 403 that the Authorizer answers sends req again (at most
// clientMaxChallenges times); handshake requests leave the challenge to
// Connect instead (a *challengeError).
func (cfg *clientConfig) do(req *http.Request, handshake bool) (*http.Response, error) {
	a := cfg.auth
	if a == nil {
		return cfg.client.Do(req)
	}
	for n := 0; ; n++ {
		if err := a.Authorize(req); err != nil {
			return nil, fmt.Errorf("authorize the request: %w", err)
		}
		resp, err := cfg.client.Do(req)
		if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden || n == clientMaxChallenges {
			return resp, err
		}
		clientDiscard(resp)
		if handshake {
			return nil, &challengeError{req: req, resp: resp}
		}
		if err := a.Challenge(req.Context(), req, resp); err != nil {
			return nil, fmt.Errorf("authorization: %w", err)
		}
		if req, err = cfg.again(req); err != nil {
			return nil, err
		}
	}
}

// doUnchallenged sends req once with the Authorizer's credentials, and
// leaves a 401 or 403 unanswered: for a request not worth a login.
func (cfg *clientConfig) doUnchallenged(req *http.Request) (*http.Response, error) {
	if a := cfg.auth; a != nil {
		if err := a.Authorize(req); err != nil {
			return nil, fmt.Errorf("authorize the request: %w", err)
		}
	}
	return cfg.client.Do(req)
}

// again returns a copy of req to send once more, with a fresh body.
func (cfg *clientConfig) again(req *http.Request) (*http.Request, error) {
	next := req.Clone(req.Context())
	if req.Body != nil {
		if req.GetBody == nil {
			return nil, errors.New("mcphttp: the request cannot be sent again")
		}
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		next.Body = body
	}
	return next, nil
}

// authorized runs connect, which runs a handshake; when the server
// challenged it, it has the Authorizer answer with ctx and connects again.
func (cfg *clientConfig) authorized(ctx context.Context, connect func() (*mcpclient.Client, error)) (*mcpclient.Client, error) {
	for n := 0; ; n++ {
		c, err := connect()
		var ce *challengeError
		if err == nil || cfg.auth == nil || !errors.As(err, &ce) || n == clientMaxChallenges {
			return c, err
		}
		if err := cfg.auth.Challenge(ctx, ce.req, ce.resp); err != nil {
			return nil, fmt.Errorf("mcphttp: authorization: %w", err)
		}
	}
}
