// Package oauth is the client side of the Model Context Protocol's
// Authorization section: an mcphttpclient.Authorizer that takes an MCP client from
// the server's 401 to an access token and keeps it valid, for the revisions
// 2025-03-26 to 2026-07-28.
//
//	a, err := oauth.New(oauth.Config{
//		ClientMetadataURL: "https://app.example.com/oauth/client.json", // or ClientID, or neither (DCR)
//		RedirectURL:       lb.RedirectURL(),                             // a Loopback for a command-line program
//		Browser:           lb.Browser(oauth.PrintURL(os.Stderr)),
//	})
//	c, err := mcphttpclient.Connect(ctx, "https://mcp.example.com/mcp", &mcphttpclient.Options{Authorizer: a})
//
// On a 401 it reads the WWW-Authenticate challenge and finds the
// authorization server the way the specification orders it: the Protected
// Resource Metadata (RFC 9728) named by resource_metadata, or at the
// path-inserted and then the root well-known URL, whose resource must be the
// server's own; then the authorization server's metadata (RFC 8414 and OpenID
// Connect discovery, path-inserted first), whose issuer must be exactly the
// one the resource names. Without resource metadata it falls back to what
// 2025-03-26 did: the server's origin as the authorization server, and its
// /authorize, /token and /register when that has no metadata either.
//
// The client identifies itself with, in this order, a pre-registered client
// (Config.ClientID), a Client ID Metadata Document (Config.ClientMetadataURL,
// when the server supports them), a registration made before with the same
// authorization server (Store), or Dynamic Client Registration (RFC 7591).
// Client credentials are bound to the authorization server's issuer: when the
// resource names another one, the client registers anew.
//
// Then it gets a token: by default the authorization code grant with PKCE
// (S256), the resource parameter (RFC 8707) in the authorization and token
// requests, and the RFC 9207 iss check of the SEP-2468 table before the code
// is used; the browser step is Config.Browser. Machine clients use client
// credentials (Config.ClientCredentials, with a secret or a private_key_jwt
// key) or a JWT assertion (Config.Assertion: workload identity, or an
// enterprise IdP's ID-JAG through IDJAGAssertion). Scopes come from the
// challenge, else the resource's scopes_supported, else none;
// offline_access is added when the authorization server offers it, with
// prompt=consent as OpenID Connect Core §11 requires.
//
// Afterwards it refreshes a token before it expires (a tenth of its
// lifetime before, at most 30 s; with the resource parameter too), steps up on 403 insufficient_scope with the union of the scopes
// granted and those the challenge names (once per scope set: a server that
// keeps refusing a token that has them is an error), and with Config.DPoP
// binds tokens to a key (RFC 9449), answering use_dpop_nonce from the
// authorization server and the MCP server. Tokens and registrations live in
// a Store (in memory by default).
//
// It is built on golang.org/x/oauth2 (authorization URLs, PKCE, token
// requests and their errors) and github.com/go-jose/go-jose/v4 (DPoP proofs
// and client assertions), in a module of its own so that the standard-library
// runtime does not depend on them.
package oauth
