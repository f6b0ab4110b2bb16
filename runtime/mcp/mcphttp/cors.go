package mcphttp

import (
	"net/http"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// CORS opens the endpoint to the web pages of the origins it lists
// (Options.CORS): it is rpchttp's CORS, one struct for both transports. For
// MCP, a preflight from a listed origin may ask for GET, POST and DELETE
// and for Content-Type, Accept, Authorization, Mcp-Session-Id,
// MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*, Last-Event-ID,
// traceparent, tracestate and DPoP (and AllowedHeaders), and the
// responses expose Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate
// and DPoP-Nonce (and ExposedHeaders).
type CORS = rpchttp.CORS

// corsHeaders are the request headers the transports (and a tracing
// client) send.
var corsHeaders = []string{httpwire.HdrContentType, httpwire.HdrAccept, "Authorization", httpwire.HdrLastEventID,
	httpwire.HdrSessionID, httpwire.HdrProtocolVersion, httpwire.HdrMethod, httpwire.HdrName, "Mcp-Param-*", "Traceparent", "Tracestate", "DPoP"}

// corsExposed are the response headers a script of the MCP client reads.
var corsExposed = []string{httpwire.HdrSessionID, httpwire.HdrProtocolVersion, "WWW-Authenticate", "DPoP-Nonce"}

// newCORS checks c (nil: no CORS), panicking on a configuration NewHandler
// cannot serve (see CORS.Validate).
func newCORS(c *CORS) *httpguard.CORS {
	if c == nil {
		return nil
	}
	p, err := httpguard.NewCORS(httpguard.CORSConfig{
		Origins:     c.AllowedOrigins,
		Credentials: c.AllowCredentials,
		Methods:     []string{http.MethodGet, http.MethodPost, http.MethodDelete},
		Headers:     append(append([]string(nil), corsHeaders...), c.AllowedHeaders...),
		Expose:      append(append([]string(nil), corsExposed...), c.ExposedHeaders...),
		MaxAge:      c.MaxAge,
	})
	if err != nil {
		panic("mcphttp: Options.CORS: " + err.Error())
	}
	return p
}

// serveOptions answers an OPTIONS request, which has passed the Origin and
// Host checks: a preflight when CORS is on (before Auth: a browser sends
// no credentials with one), 405 otherwise.
func (h *Handler) serveOptions(w http.ResponseWriter, r *http.Request) {
	if h.cors == nil || !httpguard.IsPreflight(r) {
		methodNotAllowed(w, "GET, POST, DELETE", "Method Not Allowed")
		return
	}
	if msg := h.cors.Preflight(w, r); msg != "" {
		writeError(w, http.StatusForbidden, nil, runtime.CodeInvalidRequest, msg)
	}
}
