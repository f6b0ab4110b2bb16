package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// Options configures a Client.
type Options struct {
	// Info names the client to the server; the zero value sends
	// {"name":"rpcgen","version":"devel"}.
	Info mcp.Implementation
	// Capabilities is the client's capabilities object. Nil declares the
	// features below that have a handler: elicitation (form and URL modes)
	// for OnElicit, sampling for OnSample, roots for Roots.
	Capabilities json.RawMessage
	// Extensions are the extensions (SEP-2133) the client declares, added
	// to its capabilities' "extensions" member (which Capabilities may then
	// not have): in initialize in a legacy session, in every request's
	// _meta in 2026-07-28. A server answers an extension's methods
	// (CallExtension) only to a client that declared the extension, and
	// may offer its features only to such a client.
	Extensions []mcp.Extension
	// ProtocolVersion selects the protocol. Empty means dual-era: probe with
	// server/discover and speak 2026-07-28 if the server answers as a modern
	// server does, otherwise fall back to initialize offering 2025-11-25. A
	// legacy version (2024-11-05 to 2025-11-25) means initialize with exactly
	// that version (the server may answer with another legacy version, which
	// the client then speaks); 2026-07-28 means modern only, with no fallback.
	ProtocolVersion string
	// OnLog receives the server's log messages (notifications/message). It
	// runs on the client's reader and must not call the client back.
	OnLog func(mcp.LogMessage)
	// Logger receives the client's diagnostics (dropped messages, the era
	// probe's outcome); nil discards them.
	Logger *slog.Logger
	// OnElicit answers the server's requests for information from the user
	// (elicitation/create): a request the server sends mid-call in a legacy
	// session, an input request of a tool call, prompt or resource read in
	// 2026-07-28. Legacy requests are answered on a goroutine of their own,
	// whose context ends when the server cancels the request or the client
	// closes; 2026-07-28 ones on the calling goroutine, with the call's
	// context. A *runtime.Error it returns reaches the server as it is. An
	// accepted form-mode answer gets the default of every field of the
	// requested schema that it leaves out (SEP-1034), so a handler that
	// shows the form pre-filled may return only what the user changed.
	OnElicit func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// OnSample answers the server's requests for a message from the
	// client's model (sampling/createMessage), as OnElicit does.
	OnSample func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// SampleTools declares sampling.tools with OnSample: the model it asks
	// may use the tools a request offers (p.Tools, p.ToolChoice, tool_use
	// and tool_result blocks, 2025-11-25). Without it such a request is
	// refused with Invalid params.
	SampleTools bool
	// Roots lists the roots the client exposes (roots/list), as OnElicit
	// answers.
	Roots func(ctx context.Context) ([]mcp.Root, error)
	// OnResourceUpdated hears notifications/resources/updated: the resource
	// uri, subscribed to, changed. Like OnLog it runs on the client's reader
	// and must not call the client back.
	OnResourceUpdated func(uri string)
	// OnListChanged hears the server's list_changed notifications; method is
	// the notification's, such as NotificationToolsListChanged. It
	// runs as OnResourceUpdated does.
	OnListChanged func(method string)
	// ProbeTimeout matters only to a dual-era client (ProtocolVersion ""),
	// on a stream transport (stdio, TCP, Unix sockets, WebSocket). Such a
	// client first sends server/discover, and the answer decides the era: a
	// DiscoverResult or a recognized 2026-07-28 error means a 2026-07-28
	// server, any other answer a legacy one, which gets initialize. A
	// legacy server may also ignore server/discover, so when it has no
	// answer after ProbeTimeout (default 2s) the client sends a ping, which
	// legacy servers answer before initialize: a server that answers the
	// ping first is taken for a legacy one. A timeout alone is not: a
	// server that answers nothing (still starting, or on a busy machine) is
	// waited for, and server/discover's answer still decides, up to 10
	// ProbeTimeouts in all; then the client sends initialize and logs a
	// warning. Over Streamable HTTP and in process (mcpserver.Server.InProcess) every request gets
	// an answer, so the client waits for it within Connect's context and
	// ProbeTimeout does not apply. A client given a ProtocolVersion never
	// probes.
	ProbeTimeout time.Duration
	// Middleware wraps every request and notification the client sends, the
	// first outermost (see Middleware). None costs nothing.
	Middleware []Middleware
	// Retry says how a request that failed with its transport is tried
	// again (see runtime.RetryPolicy): one never
	// sent (the server refused the connection, its session was gone), and
	// one lost in flight (the connection dropped; HTTP 502, 503, 504) when
	// it may run twice: tools/list and the other lists, resources/read,
	// prompts/get, completion/complete, ping, and a tools/call of a tool
	// that tools/list marks readOnlyHint or idempotentHint (the client
	// lists the tools to learn it when it has not). A tool call lost and not
	// retried fails with an error wrapping ErrNotIdempotent and
	// runtime.ErrConnectionLost: it may or may not have run. The zero value
	// tries 4 times with jittered backoff from 50 ms to 2 s; Attempts 1
	// never retries; runtime.WithoutRetry(ctx) turns retries off for one
	// call. The handshake is not retried.
	Retry runtime.RetryPolicy
	// NoReinitialize keeps the client from starting a new session when the
	// server ends a legacy one (a Streamable HTTP 404, a broken HTTP+SSE
	// stream): every call then fails with ErrSessionExpired. By default the
	// client initializes a new session with the revision it spoke, sets the
	// log level again and subscribes again to its resources, trying again
	// with backoff (Retry's delays) until it succeeds or closes; calls made
	// meanwhile wait for it, within their contexts. A dual-era client
	// (ProtocolVersion "") first probes with server/discover, as the
	// handshake does, and moves to 2026-07-28 when the restarted server
	// speaks it: the log level then goes in _meta and the subscriptions
	// reopen as one subscriptions/listen stream.
	NoReinitialize bool
	// OnSessionExpired, when set, hears of each new session the client
	// started because the server ended the old one: err is nil when it is
	// ready, resources included; it joins the subscriptions (or the log
	// level) the new session refused, if any, when it is ready but for
	// those; and it wraps ErrSessionExpired when the attempt failed (the
	// client tries again). It runs on a goroutine of the client's.
	OnSessionExpired func(err error)
	// OnSessionChanged, when set, hears that a new session the client
	// started negotiated something else than the one before it (the server
	// was upgraded): another revision, server name or version, capabilities
	// or instructions. The client speaks the new session's revision and its
	// accessors (Session, ProtocolVersion, ServerInfo, ServerCapabilities,
	// Instructions) return its values from then on; it restores the log
	// level and subscriptions only where the new capabilities offer them
	// (OnSessionExpired reports the rest), and lists the tools again before
	// it retries a tool call. It runs before OnSessionExpired(nil), on the
	// same goroutine.
	OnSessionChanged func(old, new SessionInfo)
}

// DefaultProbeTimeout is the ProbeTimeout used when none is given.
const DefaultProbeTimeout = 2 * time.Second

// Client is a connection to one MCP server, in the legacy or the modern era.
// Its methods are safe for concurrent use.
type Client struct {
	opts   Options
	logger *slog.Logger
	t      clientTransport
	nextID atomic.Int64

	// What the handshake (or the last new session) negotiated; swapped
	// whole when a new session starts (client_renew.go).
	neg     atomic.Pointer[negotiated]
	offered string // the legacy revision initialize offered

	serving serverRequests // legacy server requests being answered
	listen  listener       // the subscriptions/listen stream (2026-07-28)

	notifying chan struct{} // a slot per NotifyTool call running

	chain Handler // the middleware chain; nil without

	answersAll bool // the transport answers every request: no clock in the probe (client_probe.go)

	ready atomic.Bool // the handshake succeeded
	renew renewal     // new sessions for ended ones (client_renew.go)
	hints toolHints   // which tools may be retried (client_retry.go)

	endpoint    Endpoint    // the server's end of the transport (Endpoint)
	sessionEnds sessionEnds // run when the session ends (sessionend.go)
	closing     atomic.Bool // Close was called

	metaMu   sync.Mutex
	logLevel string
	meta     atomic.Pointer[[]byte] // modern _meta members; nil in legacy sessions
}

// Connect speaks MCP over f (one message per frame) and performs the
// handshake Options.ProtocolVersion asks for; ctx bounds only the
// handshake. Closing the client closes f.
func Connect(ctx context.Context, f runtime.Framer, opts Options) (*Client, error) {
	c := newClient(opts)
	s := newClientStream(c, f)
	c.t = s
	c.endpoint = endpointOf(f)
	return c.start(ctx)
}

// DialCommand starts cmd as a stdio MCP server (one JSON message per line)
// and connects to it. cmd.Stderr defaults to os.Stderr, so the server's logs
// pass through. Close closes the child's stdin, waits for it to exit (killing
// it after a grace period) and reports a non-zero exit as an error.
func DialCommand(ctx context.Context, cmd *exec.Cmd, opts Options) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	child, err := runtime.StartCommand(cmd, runtime.NewlineDelimited, 0)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	c := newClient(opts)
	s := newClientStream(c, child)
	s.afterClose = func() error {
		if err := child.Wait(s.done); err != nil {
			return fmt.Errorf("mcp: %w", err)
		}
		return nil
	}
	c.t = s
	c.endpoint = pipeEndpoint
	return c.start(ctx)
}

func newClient(opts Options) *Client {
	if opts.Info.Name == "" && opts.Info.Version == "" {
		opts.Info = mcp.Implementation{Name: "rpcgen", Version: "devel"}
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{opts: opts, logger: logger, notifying: make(chan struct{}, notifyLimit)}
	c.neg.Store(&negotiated{})
	c.chain = c.clientChain(opts.Middleware)
	c.serving.init()
	return c
}

// start checks the options and runs the handshake, closing the transport if
// either fails.
func (c *Client) start(ctx context.Context) (*Client, error) {
	err := c.checkOptions()
	if err == nil {
		err = c.handshake(ctx)
	}
	if err != nil {
		c.serving.stop()
		c.t.close()
		return nil, err
	}
	c.ready.Store(true)
	return c, nil
}

func (c *Client) checkOptions() error {
	caps := bytes.TrimSpace(c.opts.Capabilities)
	if len(caps) == 0 {
		c.opts.Capabilities = defaultCapabilities(&c.opts)
	} else {
		var compact bytes.Buffer
		if caps[0] != '{' || json.Compact(&compact, caps) != nil {
			return errors.New("mcp: Options.Capabilities must be a JSON object")
		}
		c.opts.Capabilities = compact.Bytes()
	}
	return c.declareExtensions()
}

// SessionInfo is what a handshake negotiated with the server. A legacy
// session that the server ended is followed by a new one, whose values may
// differ (an upgraded server): see Options.OnSessionChanged.
type SessionInfo struct {
	ProtocolVersion string
	ServerInfo      mcp.Implementation
	Instructions    string
	Capabilities    json.RawMessage
}

// negotiated is the client's SessionInfo and its era.
type negotiated struct {
	SessionInfo
	modern bool
}

// info returns what is negotiated; never nil.
func (c *Client) info() *negotiated { return c.neg.Load() }

// Session returns what the current session negotiated, all of one session.
func (c *Client) Session() SessionInfo { return c.info().SessionInfo }

// ProtocolVersion returns the protocol revision in use.
func (c *Client) ProtocolVersion() string { return c.info().ProtocolVersion }

// Modern reports whether the client speaks the stateless 2026-07-28 era.
func (c *Client) Modern() bool { return c.info().modern }

// ServerInfo returns the server's name and version, as it gave them.
func (c *Client) ServerInfo() mcp.Implementation { return c.info().ServerInfo }

// Instructions returns the server's instructions for models, if it gave any.
func (c *Client) Instructions() string { return c.info().Instructions }

// ServerCapabilities returns the server's capabilities object.
func (c *Client) ServerCapabilities() json.RawMessage { return c.info().Capabilities }

// Close ends the connection; calls still waiting fail with runtime.ErrClosed,
// and the contexts of handlers answering a legacy server's requests end. A
// new session being started is given up, and Close waits for it (but not
// for an OnSessionExpired or OnSessionChanged callback running then, which
// may itself call Close). For DialCommand it also waits for the server
// process.
func (c *Client) Close() error {
	c.closing.Store(true)
	done := c.renew.shut()
	c.serving.stop()
	if done != nil {
		<-done
	}
	err := c.t.close()
	c.endSession(nil)
	return err
}

// isModernVersion and isLegacyVersion classify a revision this package speaks.
func isModernVersion(v string) bool { return slices.Contains(mcp.ModernVersions, v) }
func isLegacyVersion(v string) bool { return slices.Contains(mcp.LegacyVersions, v) }

// setVersion records the negotiated revision and, for a modern one, builds the
// _meta members every request carries.
func (c *Client) setVersion(v string) {
	n := *c.info()
	n.ProtocolVersion, n.modern = v, isModernVersion(v)
	c.neg.Store(&n)
	if !n.modern {
		c.meta.Store(nil)
		return
	}
	c.metaMu.Lock()
	c.rebuildMeta()
	c.metaMu.Unlock()
}

// adopt records what the server said of itself in the handshake.
func (c *Client) adopt(server mcp.Implementation, instructions string, caps json.RawMessage) {
	n := *c.info()
	n.ServerInfo, n.Instructions, n.Capabilities = server, instructions, caps
	c.neg.Store(&n)
}

// rebuildMeta must be called with metaMu held.
func (c *Client) rebuildMeta() {
	m := clientMeta(c.info().ProtocolVersion, c.opts.Capabilities, c.opts.Info, c.logLevel)
	c.meta.Store(&m)
}

// requestMeta returns the _meta members for the next request.
func (c *Client) requestMeta() []byte {
	if m := c.meta.Load(); m != nil {
		return *m
	}
	return nil
}

// notification handles a notification other than progress.
func (c *Client) notification(env *wire.Envelope) {
	switch {
	case env.MethodIs(mcp.NotificationMessage):
		if c.opts.OnLog == nil {
			return
		}
		var m mcp.LogMessage
		if err := json.Unmarshal(env.Params, &m); err != nil {
			c.logger.Debug("mcp: dropped a malformed log message", "err", err)
			return
		}
		c.opts.OnLog(m)
	case env.MethodIs(mcp.NotificationCancelled):
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(env.Params, &p) == nil && len(p.RequestID) > 0 {
			c.serving.cancel(p.RequestID)
		}
	case env.MethodIs(mcp.NotificationSubscriptionsAcknowledged):
		c.acknowledged(env.Params)
	case env.MethodIs(mcp.NotificationTasks):
		c.taskNotification(env.Params)
	case env.MethodIs(mcp.NotificationResourcesUpdated):
		if c.opts.OnResourceUpdated == nil {
			return
		}
		var p struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(env.Params, &p); err != nil || p.URI == "" {
			c.logger.Debug("mcp: dropped a malformed resources/updated notification")
			return
		}
		c.opts.OnResourceUpdated(p.URI)
	case env.MethodIs(mcp.NotificationToolsListChanged),
		env.MethodIs(mcp.NotificationPromptsListChanged),
		env.MethodIs(mcp.NotificationResourcesListChanged):
		if c.opts.OnListChanged != nil {
			var method string
			json.Unmarshal(env.Method, &method) // a JSON string: methodIs matched it
			c.opts.OnListChanged(method)
		}
	default:
		c.logger.Debug("mcp: ignored a notification", "method", string(env.Method))
	}
}

// clientParseProgress decodes the params of notifications/progress.
func clientParseProgress(params []byte) (mcp.ProgressNotification, bool) {
	var pn mcp.ProgressNotification
	if err := json.Unmarshal(params, &pn); err != nil || len(pn.ProgressToken) == 0 {
		return pn, false
	}
	return pn, true
}
