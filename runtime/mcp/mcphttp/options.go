package mcphttp

import (
	"log/slog"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Options configures a Handler. The zero value is safe: Origin and (on a
// loopback listener) Host are checked, bodies and sessions are bounded, and
// legacy streams are resumable from an in-memory event store.
type Options struct {
	// AllowedOrigins lists the Origin header values accepted besides the
	// server's own: a browser page on another origin gets 403 unless its
	// origin ("https://app.example.com", scheme and host and port as the
	// browser sends them) is listed. "*" accepts every origin. A request
	// with no Origin header (any non-browser client) is not checked, unless a
	// browser's Sec-Fetch-Site header says it comes from another site.
	AllowedOrigins []string
	// AllowedHosts lists Host header values (a host name, with or without a
	// port) accepted on a loopback listener besides localhost, 127.0.0.1 and
	// [::1]. On a loopback listener every other Host gets 403, which stops
	// DNS rebinding; on other listeners the Host is not checked.
	AllowedHosts []string
	// DisableHostCheck turns the loopback Host check off (behind a trusted
	// reverse proxy that rewrites Host, say).
	DisableHostCheck bool
	// CORS, when set, lets the web pages of the origins it lists call the
	// endpoint from a browser (see CORS); NewHandler panics on a CORS it
	// cannot serve ("*" with credentials, an origin that is not
	// scheme://host[:port]). nil: no CORS, and OPTIONS gets 405.
	CORS *CORS

	// MaxBodyBytes bounds a POST body; a larger one gets 413 with a JSON-RPC
	// error. Default 4 MiB.
	MaxBodyBytes int64
	// BodyReadTimeout bounds the time a POST body may take to arrive; a body
	// still coming after it gets 408 and the connection is closed, so a
	// client that sends slowly cannot hold connections. A body still
	// arriving when it passes gets a read deadline on its connection (no
	// timer is set per request: one watches the bodies being read), never
	// later than the http.Server's ReadTimeout would allow; it bounds the
	// upload, not the call. Default 30 seconds; negative: none.
	BodyReadTimeout time.Duration
	// MaxSessions bounds the live legacy sessions (Streamable HTTP and
	// HTTP+SSE together); an initialize beyond it gets 503. Default 10000.
	MaxSessions int
	// SessionIdleTimeout ends a legacy session that has had no request and
	// no open stream for this long; its id then gets 404. Default 10 minutes.
	SessionIdleTimeout time.Duration

	// SSE answers every request with an event stream; by default a request
	// gets a JSON response unless its handler sends a notification (progress,
	// a log message) before its result, and the stream starts then.
	SSE bool
	// EventStore keeps the events of legacy Streamable HTTP streams so a
	// client can resume one (GET with Last-Event-ID). nil means an in-memory
	// store bounded per session (NewMemoryEventStore(0)). With a
	// SessionStore it must be a SharedEventStore the replicas share.
	EventStore EventStore

	// SessionStore, when set, keeps the legacy Streamable HTTP sessions
	// where every replica of the server finds them (package ext/redis has
	// one on Redis), so a load balancer may send any request of a session
	// to any replica: MaxSessions then bounds the sessions of all replicas
	// together. It needs a SharedEventStore as EventStore and a Bus. nil
	// keeps sessions in this handler's memory. The 2024-11-05 HTTP+SSE
	// transport keeps its sessions to the replica holding their stream.
	SessionStore SessionStore
	// Bus carries what the replicas tell each other (a client's answer to
	// a request another replica sent, a cancellation, a session's end);
	// nil means the server's (mcpserver.Options.Bus). Only used with a
	// SessionStore.
	Bus mcpserver.Bus
	// StoreTimeout bounds each call of the SessionStore, the EventStore and
	// the Bus made for a request of a shared session: a request whose store
	// does not answer in time gets 503 with a JSON-RPC error. Default 2
	// seconds.
	StoreTimeout time.Duration
	// RetryInterval is the reconnection delay an SSE stream asks of a client
	// (the retry field). Default 1 second.
	RetryInterval time.Duration
	// KeepAlive is the interval of keep-alive comments on an idle open
	// stream. Default 15 seconds; negative disables them.
	KeepAlive time.Duration

	// DisableLegacySSE turns off the 2024-11-05 HTTP+SSE transport (a GET
	// without a session id opening a stream that names its POST endpoint).
	DisableLegacySSE bool

	// Auth, when set, requires a bearer token on every request (spec:
	// Authorization).
	Auth *Auth

	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 10000
	}
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = 10 * time.Minute
	}
	if o.StoreTimeout <= 0 {
		o.StoreTimeout = 2 * time.Second
	}
	if o.RetryInterval <= 0 {
		o.RetryInterval = time.Second
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
