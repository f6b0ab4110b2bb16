package mcphttp

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
)

// guard runs the checks every request passes before anything else, in the
// order the protocol's security rules need them: the Origin (a browser page
// of another site gets 403; the protocol's defence against DNS rebinding),
// the Host on a loopback listener (403 for a name other than a loopback one,
// which is what DNS rebinding looks like from the server), then the bearer
// token when Auth is set (401/403). On success it returns the request to
// serve, carrying the token's TokenInfo in its context; otherwise it has
// answered and returns false.
func (h *Handler) guard(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	loopback := onLoopback(r)
	if !h.originAllowed(r, loopback) {
		writeError(w, http.StatusForbidden, nil, runtime.CodeInvalidRequest, "Forbidden: Origin not allowed")
		return nil, false
	}
	if loopback && !h.opts.DisableHostCheck && !h.hostAllowed(r.Host) {
		writeError(w, http.StatusForbidden, nil, runtime.CodeInvalidRequest, "Forbidden: Host not allowed")
		return nil, false
	}
	if h.opts.Auth != nil {
		return h.opts.Auth.authenticate(w, r)
	}
	return r, true
}

// onLoopback reports whether r came in on a loopback address of this host,
// as the connection's local address says. Without one (a handler called
// directly, not by an http.Server) it reports false.
func onLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return false
	}
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ap.Addr().IsLoopback()
}

// originAllowed reports whether r's Origin header, if any, is acceptable. A
// request without one (every client that is not a browser) passes, unless
// a browser's Sec-Fetch-Site says it comes from another site; a browser's
// Origin must be the server's own origin, a loopback origin when the server
// is reached on loopback, or one of Options.AllowedOrigins.
func (h *Handler) originAllowed(r *http.Request, loopback bool) bool {
	values := r.Header.Values("Origin")
	if len(values) == 0 || len(values) == 1 && values[0] == "" {
		// A browser leaves Origin out of a no-cors GET (an <img>, say); if it
		// says the request comes from another site, it is refused all the
		// same. Other clients send no Sec-Fetch-Site.
		return !strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site") || h.originListed("")
	}
	if len(values) > 1 {
		return false
	}
	origin := values[0]
	if h.originListed(origin) {
		return true
	}
	scheme, hostport, ok := strings.Cut(origin, "://")
	if !ok || (!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https")) {
		return false // "null" and anything that is not a web origin
	}
	if strings.ContainsAny(hostport, "/?#@") {
		return false // a browser sends scheme://host[:port], nothing more
	}
	if loopback && isLoopbackHost(hostname(hostport)) {
		return true
	}
	own := "http"
	if r.TLS != nil {
		own = "https"
	}
	return strings.EqualFold(scheme, own) && sameHostPort(hostport, r.Host, own)
}

// originListed reports whether Options.AllowedOrigins admits origin: it
// lists it (a trailing slash aside), or "*". The empty origin is admitted
// only by "*".
func (h *Handler) originListed(origin string) bool {
	for _, o := range h.opts.AllowedOrigins {
		if o == "*" || origin != "" && strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// sameHostPort compares two host[:port] strings of scheme, a missing port
// standing for the scheme's default one.
func sameHostPort(a, b, scheme string) bool {
	ha, pa := splitHostPort(a, scheme)
	hb, pb := splitHostPort(b, scheme)
	return ha != "" && strings.EqualFold(ha, hb) && pa == pb
}

// splitHostPort splits host[:port] (IPv6 in brackets), filling in the
// scheme's default port; the host comes back without brackets.
func splitHostPort(hp, scheme string) (host, port string) {
	host, port = hp, ""
	if hasPort(hp) {
		i := strings.LastIndexByte(hp, ':')
		host, port = hp[:i], hp[i+1:]
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if port == "" {
		port = "80"
		if strings.EqualFold(scheme, "https") {
			port = "443"
		}
	}
	return host, port
}

// hostname returns the host of host[:port], without brackets around an IPv6
// address.
func hostname(hp string) string {
	host, _ := splitHostPort(hp, "http")
	return host
}

// isLoopbackHost reports whether host (no port, no brackets) names this
// machine's loopback interface: localhost, or a loopback IP address.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
}

// hostAllowed reports whether the Host header of a request that came in on
// loopback is one the server answers to: a loopback name or address, or one
// of Options.AllowedHosts. A page whose DNS name was rebound to 127.0.0.1
// still sends its own name in Host, and gets 403.
func (h *Handler) hostAllowed(host string) bool {
	if host == "" {
		return false
	}
	if isLoopbackHost(hostname(host)) {
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, host) {
			return true
		}
		// An entry without a port accepts its name on any port.
		if !hasPort(a) && strings.EqualFold(strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"), hostname(host)) {
			return true
		}
	}
	return false
}

// hasPort reports whether the host[:port] string hp has a port.
func hasPort(hp string) bool {
	i := strings.LastIndexByte(hp, ':')
	if i < 0 {
		return false
	}
	if strings.HasPrefix(hp, "[") {
		return strings.IndexByte(hp[i:], ']') < 0
	}
	// A bare IPv6 address ("::1") has colons and no port.
	return strings.Count(hp, ":") == 1
}
