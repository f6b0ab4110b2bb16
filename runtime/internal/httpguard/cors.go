package httpguard

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultCORSMaxAge is how long a browser may cache a preflight's answer
// unless the options say otherwise: two hours, the most Chromium keeps one.
const DefaultCORSMaxAge = 2 * time.Hour

// CORSConfig is what NewCORS builds a CORS policy from.
type CORSConfig struct {
	// Origins are the exact origins (scheme://host[:port]) whose pages may
	// call the endpoint; "*" alone admits every origin (not with
	// Credentials).
	Origins []string
	// Credentials lets pages send cookies and HTTP authentication
	// (Access-Control-Allow-Credentials: true).
	Credentials bool
	// Methods are the request methods the endpoint serves.
	Methods []string
	// Headers are the request headers a page may send besides the
	// safelisted ones; an entry ending in "*" admits every name with that
	// prefix ("Mcp-Param-*").
	Headers []string
	// Expose are the response headers scripts may read.
	Expose []string
	// MaxAge is how long a preflight's answer may be cached: 0 means
	// DefaultCORSMaxAge, negative leaves Access-Control-Max-Age out.
	MaxAge time.Duration
}

// CORS is a checked cross-origin resource sharing policy: which origins'
// pages may call an endpoint from a browser, and what they may send and
// read. Build one with NewCORS.
type CORS struct {
	origins     [][]string // each normalised origin (lower case, no default port) as a header value
	any         bool       // "*"
	credentials bool
	methods     []string
	headers     map[string]bool // lower case
	prefixes    []string        // lower case
	allowMethod string
	expose      []string // the Access-Control-Expose-Headers value; nil for none
	maxAge      string
}

// Header values set as they are, shared by every response: net/http never
// modifies them, and an append to one (len == cap) copies it.
var (
	valOrigin = []string{"Origin"}
	valStar   = []string{"*"}
	valTrue   = []string{"true"}
)

// NewCORS checks c and returns its policy: an error names an origin that
// is not scheme://host[:port], "*" listed with other origins or with
// Credentials, or an empty list.
func NewCORS(c CORSConfig) (*CORS, error) {
	p := &CORS{credentials: c.Credentials, methods: c.Methods, headers: map[string]bool{},
		allowMethod: strings.Join(c.Methods, ", ")}
	if len(c.Expose) > 0 {
		p.expose = []string{strings.Join(c.Expose, ", ")}
	}
	if len(c.Origins) == 0 {
		return nil, errors.New("no origins listed")
	}
	for _, o := range c.Origins {
		if o == "*" {
			p.any = true
			continue
		}
		n, err := NormalizeOrigin(o)
		if err != nil {
			return nil, err
		}
		p.origins = append(p.origins, []string{n})
	}
	if p.any && len(p.origins) > 0 {
		return nil, errors.New(`"*" admits every origin: list it alone`)
	}
	if p.any && c.Credentials {
		return nil, errors.New(`"*" cannot go with credentials: list the exact origins`)
	}
	for _, h := range c.Headers {
		h = strings.ToLower(strings.TrimSpace(h))
		if prefix, ok := strings.CutSuffix(h, "*"); ok {
			p.prefixes = append(p.prefixes, prefix)
		} else if h != "" {
			p.headers[h] = true
		}
	}
	switch {
	case c.MaxAge == 0:
		p.maxAge = strconv.Itoa(int(DefaultCORSMaxAge / time.Second))
	case c.MaxAge > 0:
		p.maxAge = strconv.FormatInt(int64(max(c.MaxAge/time.Second, 1)), 10)
	}
	return p, nil
}

// NormalizeOrigin returns origin as a browser sends it in an Origin header:
// scheme and host in lower case, no default port, no trailing slash. Anything
// but an http or https origin with a host and nothing after it is an error.
func NormalizeOrigin(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(origin, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(origin, "?") {
		return "", fmt.Errorf("origin %q is not scheme://host[:port] (http or https)", origin)
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); p == "" && strings.HasSuffix(host, ":") ||
		u.Scheme == "http" && p == "80" || u.Scheme == "https" && p == "443" {
		host = host[:strings.LastIndexByte(host, ':')]
	}
	return u.Scheme + "://" + host, nil
}

// GuardOrigins are the origins Policy.AllowedOrigins must admit for the
// pages c admits to get past Check.
func (c *CORS) GuardOrigins() []string {
	if c.any {
		return []string{"*"}
	}
	list := make([]string, len(c.origins))
	for i, o := range c.origins {
		list[i] = o[0]
	}
	return list
}

// allowOrigin returns the Access-Control-Allow-Origin value for origin, as
// the Origin header has it, or nil when c does not admit it.
func (c *CORS) allowOrigin(origin string) []string {
	if origin == "" || origin == "null" {
		return nil
	}
	if c.any {
		return valStar
	}
	for _, o := range c.origins {
		if strings.EqualFold(o[0], origin) {
			return o
		}
	}
	return nil
}

// IsPreflight reports whether r is a CORS preflight request: OPTIONS with
// Access-Control-Request-Method.
func IsPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// Preflight answers the preflight request r with 204 and the headers that
// let the browser go on, and returns ""; or it answers nothing and returns
// why r must be refused with 403: its origin is not listed, or it asks for
// a method or a header the endpoint does not take. Every requested header
// the policy admits is named back (a prefix such as Mcp-Param-* is not
// something a browser matches).
func (c *CORS) Preflight(w http.ResponseWriter, r *http.Request) string {
	h := w.Header()
	c.vary(h)
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	allow := c.allowOrigin(r.Header.Get("Origin"))
	if allow == nil {
		return "Forbidden: Origin not allowed"
	}
	method := r.Header.Get("Access-Control-Request-Method")
	if !slices.Contains(c.methods, method) {
		return fmt.Sprintf("Forbidden: the method %s is not served here (CORS allows %s)", method, c.allowMethod)
	}
	var names []string
	for _, v := range r.Header.Values("Access-Control-Request-Headers") {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			if !c.headerAllowed(name) {
				return fmt.Sprintf("Forbidden: the request header %s is not allowed (CORS)", name)
			}
			names = append(names, name)
		}
	}
	c.allow(h, allow)
	h.Set("Access-Control-Allow-Methods", c.allowMethod)
	if len(names) > 0 {
		h.Set("Access-Control-Allow-Headers", strings.Join(names, ", "))
	}
	if c.maxAge != "" {
		h.Set("Access-Control-Max-Age", c.maxAge)
	}
	// A listed page on a public address may reach a server on a private one
	// (Private Network Access): the operator listed it.
	if strings.EqualFold(r.Header.Get("Access-Control-Request-Private-Network"), "true") {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
	return ""
}

// headerAllowed reports whether the lower-case header name may be sent.
func (c *CORS) headerAllowed(name string) bool {
	if c.headers[name] {
		return true
	}
	for _, p := range c.prefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) {
			return true
		}
	}
	return false
}

// SetHeaders adds to h, the headers of the response to r (not a
// preflight), what lets the page that sent r read it, when c admits r's
// origin: Access-Control-Allow-Origin and -Expose-Headers (and
// -Allow-Credentials). Call it before the response is written.
func (c *CORS) SetHeaders(h http.Header, r *http.Request) {
	c.vary(h)
	allow := c.allowOrigin(r.Header.Get("Origin"))
	if allow == nil {
		return
	}
	c.allow(h, allow)
	if c.expose != nil {
		h["Access-Control-Expose-Headers"] = c.expose
	}
}

// vary says that the answer depends on Origin, unless every origin gets the
// same one.
func (c *CORS) vary(h http.Header) {
	if c.any {
		return
	}
	if _, ok := h["Vary"]; ok {
		h.Add("Vary", "Origin")
	} else {
		h["Vary"] = valOrigin
	}
}

// allow sets Access-Control-Allow-Origin to allow (and -Allow-Credentials).
func (c *CORS) allow(h http.Header, allow []string) {
	h["Access-Control-Allow-Origin"] = allow
	if c.credentials {
		h["Access-Control-Allow-Credentials"] = valTrue
	}
}
