// Package verify has ready access-token verifiers for mcphttp.Auth, so that
// an MCP server is a resource server as the protocol's Authorization section
// asks, with no verifier of its own to write:
//
//   - JWT checks JWT access tokens (RFC 9068) against the authorization
//     server's JSON Web Key Set: the signature (asymmetric algorithms only),
//     the issuer exactly, this resource among the audiences, expiry and
//     not-before with a small leeway, and reads the scopes (scope or scp).
//     The key set is fetched from the jwks_uri of the issuer's metadata (or
//     a URL given) and kept as long as its Cache-Control allows; one fetch
//     runs at a time, shared by the requests that wait for it (each within
//     its own context), an expired set is served while its refresh runs or
//     fails (up to a day), and a failing endpoint is retried after a
//     backoff, not per request. A token naming a key the set lacks, or
//     whose key of that id refuses its signature (a rotation), fetches it
//     again, at most once a MinRefresh.
//
//     With JWTConfig.DPoP it takes DPoP-bound tokens too (RFC 9449): the
//     proof of each request is checked (typ, algorithm, key, signature,
//     htm, htu, iat, ath, the token's cnf.jkt), taken once (a bounded
//     replay cache), and optionally must carry a nonce of the server's.
//
//   - Introspection asks the authorization server about opaque tokens
//     (RFC 7662), with the same audience and expiry checks.
//
//     v, err := verify.NewJWT(verify.JWTConfig{Issuer: "https://auth.example.com", Audience: "https://mcp.example.com/mcp"})
//     h := mcphttp.NewHandler(srv, &mcphttp.Options{Auth: &mcphttp.Auth{Verify: v.Verify, ResourceMetadataURL: ...}})
//
// Every refusal wraps mcphttp.ErrInvalidToken (the client gets 401 with an
// invalid_token challenge) and says why. The package is a module of its own
// on github.com/go-jose/go-jose/v4, so that servers that do not verify JWTs,
// and clients, never download it.
package verify
