package rpchttp

import (
	"net/http"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
)

// CORS opens an HTTP endpoint to the web pages of the origins it lists
// (cross-origin resource sharing), for a client running in a browser on
// another origin: Options.CORS here, and mcphttp.Options.CORS for MCP,
// take it. A preflight (OPTIONS with Access-Control-Request-Method) from a
// listed origin, for a method the endpoint serves (POST here), gets 204
// naming back the request headers it asked for among the transport's own
// (here Content-Type, Accept, Authorization, traceparent, tracestate) and
// AllowedHeaders; every response to a listed origin names it in
// Access-Control-Allow-Origin and exposes the transport's headers
// (WWW-Authenticate here) and ExposedHeaders to scripts. A preflight from
// any other origin, or asking for another method or header, gets 403, and
// so does (as without CORS) any request whose Origin is neither listed nor
// otherwise allowed (Options.AllowedOrigins).
type CORS struct {
	// AllowedOrigins are the exact origins admitted, scheme://host[:port] as
	// a browser sends them in Origin ("https://app.example.com"); the
	// listed origins need not be repeated in Options.AllowedOrigins. "*"
	// alone admits the pages of every origin, answered with
	// "Access-Control-Allow-Origin: *": for a public endpoint whose callers
	// authenticate with a bearer token, never with cookies, so it cannot
	// go with AllowCredentials.
	AllowedOrigins []string
	// AllowCredentials lets pages send cookies and HTTP authentication
	// along (fetch's credentials: "include"). A bearer token in
	// Authorization does not need it.
	AllowCredentials bool
	// AllowedHeaders are request headers a page may send besides the
	// transport's own; an entry ending in "*" admits every header with that
	// prefix.
	AllowedHeaders []string
	// ExposedHeaders are response headers scripts may read besides the
	// transport's own.
	ExposedHeaders []string
	// MaxAge is how long a browser may cache a preflight's answer: 0 means
	// 2 hours, negative leaves Access-Control-Max-Age out (5 seconds in
	// most browsers).
	MaxAge time.Duration
}

// Validate reports what makes c unusable, on which NewHandler would panic:
// "*" with credentials or with other origins, an origin that is not
// scheme://host[:port] (http or https), no origin at all.
func (c *CORS) Validate() error {
	_, err := c.policy()
	return err
}

// newCORS checks c (nil: no CORS), panicking on a configuration NewHandler
// cannot serve.
func newCORS(c *CORS) *httpguard.CORS {
	if c == nil {
		return nil
	}
	p, err := c.policy()
	if err != nil {
		panic("rpchttp: Options.CORS: " + err.Error())
	}
	return p
}

func (c *CORS) policy() (*httpguard.CORS, error) {
	return httpguard.NewCORS(httpguard.CORSConfig{
		Origins:     c.AllowedOrigins,
		Credentials: c.AllowCredentials,
		Methods:     []string{http.MethodPost},
		Headers:     append([]string{"Content-Type", "Accept", "Authorization", "Traceparent", "Tracestate"}, c.AllowedHeaders...),
		Expose:      append([]string{"WWW-Authenticate"}, c.ExposedHeaders...),
		MaxAge:      c.MaxAge,
	})
}
