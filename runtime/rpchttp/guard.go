package rpchttp

import (
	"net/http"

	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
)

// OriginPolicy is the check NewHandler (and mcphttp's handler) makes of every
// request before it is served, for other handlers of this module's transports
// to apply the same defaults: the WebSocket handler of ext/websocket checks the
// upgrade request with it.
type OriginPolicy struct {
	// AllowedOrigins, AllowedHosts and DisableHostCheck mean what they mean in
	// Options.
	AllowedOrigins   []string
	AllowedHosts     []string
	DisableHostCheck bool
}

// Check reports why r must be refused with 403 Forbidden, or "" when it may be
// served: a request with an Origin that is neither the server's own, a
// loopback origin on a loopback listener, nor one of AllowedOrigins; one whose
// Sec-Fetch-Site says cross-site; and, on a loopback listener, one whose Host
// is not a loopback name or one of AllowedHosts (DNS rebinding).
func (p OriginPolicy) Check(r *http.Request) string {
	g := httpguard.Policy{AllowedOrigins: p.AllowedOrigins, AllowedHosts: p.AllowedHosts, DisableHostCheck: p.DisableHostCheck}
	return g.Check(r)
}
