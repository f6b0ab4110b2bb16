package mcphttpclient

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// Options configures Connect, NewStreamableTransport and DialSSE.
type Options struct {
	// MCP holds the handshake options; ProtocolVersion "" means dual-era
	// (2026-07-28 first, then initialize).
	MCP mcpclient.Options
	// HTTPClient sends the requests. nil means a client of the transport's
	// own, based on http.DefaultTransport, with no overall timeout (streams
	// are long-lived; bound calls with their contexts) and up to 64 idle
	// connections, which Close closes.
	HTTPClient *http.Client
	// Header is added to every request, e.g. Authorization. The transport's
	// own protocol headers (Accept, Content-Type, MCP-Protocol-Version,
	// Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID) take precedence.
	Header http.Header
	// Authorizer, when set, gives every request its credentials and answers
	// the server's 401 and 403 challenges, logging in when needed (see
	// Authorizer; module ext/oauth has the OAuth 2.1 one). An Authorization
	// header it sets replaces one in Header.
	Authorizer Authorizer
	// Transport selects the transport: "" tries Streamable HTTP and then the
	// 2024-11-05 HTTP+SSE transport (see Connect), "streamable" and "sse"
	// use only the one named.
	Transport string
	// NoStandaloneStream keeps a legacy Streamable HTTP session from opening
	// its standalone GET stream, which carries the server's messages not
	// related to any request (resources/updated, list_changed, log
	// messages). By default the client opens it once initialize started a
	// session, resumes it with Last-Event-ID after a drop, and does without
	// when the server offers none (405).
	NoStandaloneStream bool
}

// ErrSessionExpired is wrapped by the error of a call made in a legacy
// session that the server no longer knows: a Streamable HTTP 404 (the
// server ended or forgot the session), or an HTTP+SSE stream that broke. It
// is mcpclient.ErrSessionExpired: the mcpclient.Client starts a new session itself
// (see mcpclient.Options.NoReinitialize and OnSessionExpired).
var ErrSessionExpired = mcpclient.ErrSessionExpired

// Connect connects to the MCP endpoint at rawURL and runs the handshake
// opts.MCP asks for; ctx bounds only the connection and the handshake. opts
// may be nil.
//
// With opts.Transport "" it follows the specification's detection order:
//
//  1. Streamable HTTP, by POSTing to rawURL. With MCP.ProtocolVersion ""
//     the client first sends a 2026-07-28 server/discover; a result or a
//     modern JSON-RPC error means a modern server. Any other answer (an
//     HTTP 400, 404 or 405 without a modern error body, say) makes it fall
//     back to initialize on the same URL, a session-based (2025-03-26 to
//     2025-11-25) server.
//  2. If initialize, too, is refused the way a server without Streamable
//     HTTP refuses it (HTTP 400, 404 or 405 without an error only a
//     2026-07-28 server sends, or a 2xx that is neither a JSON-RPC response
//     nor an event stream), the 2024-11-05 HTTP+SSE transport: GET rawURL
//     and expect an endpoint event (see DialSSE), then initialize over it,
//     offering 2025-11-25 when MCP.ProtocolVersion is "" (the server
//     answers with the revision it speaks; a server/discover probe would
//     be pointless there). This step is skipped when MCP.ProtocolVersion
//     names 2026-07-28, which has no such transport, and after network
//     errors, authentication failures and server errors, which it could
//     not mend.
//
// If both transports fail, the error names both failures.
func Connect(ctx context.Context, rawURL string, opts *Options) (*mcpclient.Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	cfg := newClientConfig(&o)
	switch o.Transport {
	case "streamable":
		return cfg.authorized(ctx, func() (*mcpclient.Client, error) {
			return mcpclient.ConnectTransport(ctx, newStreamable(rawURL, cfg), o.MCP)
		})
	case "sse":
		return cfg.authorized(ctx, func() (*mcpclient.Client, error) { return clientConnectSSE(ctx, rawURL, cfg, o.MCP) })
	case "":
	default:
		return nil, fmt.Errorf("mcphttp: unknown transport %q (want \"\", \"streamable\" or \"sse\")", o.Transport)
	}
	var t *streamable
	c, err := cfg.authorized(ctx, func() (*mcpclient.Client, error) {
		t = newStreamable(rawURL, cfg)
		return mcpclient.ConnectTransport(ctx, t, o.MCP)
	})
	if err == nil {
		return c, nil
	}
	if ctx.Err() != nil || !t.initRefused() || slices.Contains(mcp.ModernVersions, o.MCP.ProtocolVersion) {
		return nil, err
	}
	cfg.logger.Debug("mcphttp: Streamable HTTP refused; trying HTTP+SSE", "url", rawURL, "err", err)
	c, sseErr := cfg.authorized(ctx, func() (*mcpclient.Client, error) { return clientConnectSSE(ctx, rawURL, cfg, o.MCP) })
	if sseErr != nil {
		return nil, fmt.Errorf("mcphttp: connect to %s: Streamable HTTP: %v; HTTP+SSE: %w", rawURL, err, sseErr)
	}
	return c, nil
}

// clientConnectSSE dials the HTTP+SSE transport and runs a legacy handshake over
// it.
func clientConnectSSE(ctx context.Context, rawURL string, cfg *clientConfig, opts mcpclient.Options) (*mcpclient.Client, error) {
	t, err := clientDialSSE(ctx, rawURL, cfg)
	if err != nil {
		return nil, err
	}
	if opts.ProtocolVersion == "" {
		// The transport predates 2026-07-28: probing with server/discover
		// would only cost a round trip (or the probe timeout, with servers
		// that ignore unknown methods). initialize offering the newest
		// legacy revision gets the server's own choice back.
		opts.ProtocolVersion = mcp.Version20251125
	}
	return mcpclient.ConnectTransport(ctx, t, opts)
}

// clientMaxIdlePerHost is the idle connections the default HTTP client
// keeps to the server.
const clientMaxIdlePerHost = 64

// clientConfig is what the transports of one connection share.
type clientConfig struct {
	client *http.Client
	owned  bool // client is ours: Close closes its idle connections
	header http.Header
	auth   Authorizer
	logger *slog.Logger
	// noStandalone: Options.NoStandaloneStream.
	noStandalone bool
}

func newClientConfig(o *Options) *clientConfig {
	cfg := &clientConfig{client: o.HTTPClient, header: o.Header, auth: o.Authorizer, logger: o.MCP.Logger, noStandalone: o.NoStandaloneStream}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.client == nil {
		cfg.client = &http.Client{}
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			// A transport of our own, so closing its idle connections
			// touches no one else's; concurrent calls each hold a
			// connection, so keep more than net/http's default two.
			tr := dt.Clone()
			tr.MaxIdleConnsPerHost = clientMaxIdlePerHost
			cfg.client.Transport = tr
			cfg.owned = true
		}
	}
	return cfg
}

// closeIdle closes the idle connections of a client the transport made.
func (cfg *clientConfig) closeIdle() {
	if cfg.owned {
		cfg.client.CloseIdleConnections()
	}
}

// parseClientURL parses the endpoint URL of a transport.
func parseClientURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("mcphttp: URL %q: the scheme must be http or https", rawURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("mcphttp: URL %q has no host", rawURL)
	}
	return u, nil
}
