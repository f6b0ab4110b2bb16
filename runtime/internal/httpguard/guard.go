// Package httpguard holds what the JSON-RPC and MCP HTTP handlers (packages
// rpchttp and mcphttp) check of every request before they serve it: the
// Origin and, on a loopback listener, the Host (DNS rebinding), the JSON
// Content-Type, and a body read within a size limit and a deadline; and,
// for a handler opened to other origins' pages, its CORS policy (cors.go);
// and, for the http.Server that serves them, PromptShutdown (shutdown.go).
package httpguard

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Policy says which foreign origins and hosts a handler accepts.
type Policy struct {
	// AllowedOrigins are the origins (scheme://host[:port]) accepted besides
	// the server's own, and a loopback origin when the server is reached on
	// loopback; "*" accepts any.
	AllowedOrigins []string
	// AllowedHosts are the Host values a loopback listener accepts besides
	// loopback names and addresses; an entry without a port accepts its name
	// on any port.
	AllowedHosts []string
	// DisableHostCheck turns the loopback Host check off.
	DisableHostCheck bool
}

// HeaderValue is h.Get(key) for a key already in canonical form, as net/http
// keeps received header names: without canonicalizing key again (a walk
// and check of its bytes, ~20 ns a lookup, which every request paid a few
// times over).
func HeaderValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Check reports why r must be refused with 403, or "" when it may be
// served: a browser page of another origin (unless allowed), or a foreign
// Host on a loopback listener, which is what DNS rebinding looks like from
// the server.
func (p *Policy) Check(r *http.Request) string {
	loopback := OnLoopback(r)
	if !p.originAllowed(r, loopback) {
		return "Forbidden: Origin not allowed"
	}
	if loopback && !p.DisableHostCheck && !p.hostAllowed(r.Host) {
		return "Forbidden: Host not allowed"
	}
	return ""
}

// onLoopback reports whether r came in on a loopback address of this host,
// as the connection's local address says. Without one (a handler called
// directly, not by an http.Server) it reports false.
func OnLoopback(r *http.Request) bool {
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
// is reached on loopback, or one of Policy.AllowedOrigins.
func (p *Policy) originAllowed(r *http.Request, loopback bool) bool {
	values := r.Header["Origin"]
	if len(values) == 0 || len(values) == 1 && values[0] == "" {
		// A browser leaves Origin out of a no-cors GET (an <img>, say); if it
		// says the request comes from another site, it is refused all the
		// same. Other clients send no Sec-Fetch-Site.
		return !strings.EqualFold(HeaderValue(r.Header, "Sec-Fetch-Site"), "cross-site") || p.originListed("")
	}
	if len(values) > 1 {
		return false
	}
	origin := values[0]
	if p.originListed(origin) {
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
	return strings.EqualFold(scheme, own) && SameHostPort(hostport, r.Host, own)
}

// originListed reports whether Policy.AllowedOrigins admits origin: it
// lists it (a trailing slash aside), or "*". The empty origin is admitted
// only by "*".
func (p *Policy) originListed(origin string) bool {
	for _, o := range p.AllowedOrigins {
		if o == "*" || origin != "" && strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// SameHostPort compares two host[:port] strings of scheme, a missing port
// standing for the scheme's default one.
func SameHostPort(a, b, scheme string) bool {
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
// of Policy.AllowedHosts. A page whose DNS name was rebound to 127.0.0.1
// still sends its own name in Host, and gets 403.
func (p *Policy) hostAllowed(host string) bool {
	if host == "" {
		return false
	}
	if isLoopbackHost(hostname(host)) {
		return true
	}
	for _, a := range p.AllowedHosts {
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
