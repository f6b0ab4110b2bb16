package mcphttp

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Header values of responses only the handler sends; net/http never
// modifies them.
var (
	valNoCache = []string{"no-cache"}
	valNo      = []string{"no"}
	valClose   = []string{"close"}
)

// Handler serves MCP over HTTP at one endpoint, for every client in use: the
// stateless 2026-07-28 Streamable HTTP, the session-based Streamable HTTP of
// 2025-03-26 to 2025-11-25 (sessions, standalone GET streams, resumable SSE
// response streams), and, unless Options.DisableLegacySSE, the HTTP+SSE
// transport of 2024-11-05. Create one with NewHandler and mount it where the
// MCP endpoint lives. Its methods are safe for concurrent use.
type Handler struct {
	srv    *mcpserver.Server
	opts   Options // with defaults filled in
	policy httpguard.Policy
	cors   *httpguard.CORS // nil without Options.CORS
	logger *slog.Logger
	legacy *sseLegacy // the 2024-11-05 transport; nil when disabled
	store  EventStore
	mem    *MemoryEventStore   // store, when it is one: it copies the messages it keeps
	modern *mcpserver.Session  // serves every 2026-07-28 request, statelessly
	rep    *replica            // with a SessionStore: this handler is one replica (replica.go)
	work   workers             // the goroutines of legacy calls not run inline (workers.go)
	primer primer              // the priming events waiting for their flush (primer.go)
	bodies httpguard.BodyWatch // the POST bodies being read, within Options.BodyReadTimeout

	// params caches the x-mcp-header parameters of the tools, by name.
	paramsMu sync.Mutex
	params   atomic.Pointer[map[string]*toolParams]

	// streamers names the methods and tools whose legacy calls turned into
	// event streams on the POST's own goroutine (inline.go): for good (a
	// nil count), or for the calls left in the count (noteSlow).
	streamersMu sync.Mutex
	streamers   atomic.Pointer[map[string]*atomic.Int32]

	// state counts the calls in flight, with closingBit set once Shutdown
	// has begun; drained is closed when, after that, the count is zero.
	state     atomic.Int64
	drained   chan struct{}
	drainOnce sync.Once
	exitFn    func() // h.exit, allocated once for track
	// inflight holds the 2026-07-28 calls in flight, which a Shutdown that
	// gives up waiting cancels (legacy calls are cancelled by their
	// sessions).
	inflight modernCalls

	nsessions atomic.Int64 // reserved legacy sessions, both transports

	mu        sync.RWMutex
	sessions  map[string]*session // live Streamable HTTP sessions by id
	sweeping  bool                // the janitor ending idle sessions runs
	sweepWake chan struct{}       // tells the janitor the last session ended

	// testChanged, a test seam (nil outside tests), is called after a state
	// a test waits for has changed: a call, stream or session ended, or
	// shutdown began. See noteChange.
	testChanged atomic.Pointer[func()]
}

// noteChange calls the testChanged seam, if set.
func (h *Handler) noteChange() {
	if f := h.testChanged.Load(); f != nil {
		(*f)()
	}
}

const closingBit = 1 << 62

// NewHandler returns a Handler serving srv with opts (nil means the zero
// Options, which are safe defaults).
func NewHandler(srv *mcpserver.Server, opts *Options) *Handler {
	h := &Handler{srv: srv, drained: make(chan struct{}),
		sessions: make(map[string]*session), sweepWake: make(chan struct{}, 1)}
	// A 2026-07-28 call is cancelled by its client closing the response
	// (the revision has no client notification over HTTP, and serveModern
	// hands the session none), or by a Shutdown that gives up: its context
	// ends, and the session adds no cancelable context of its own.
	modern, ctl := srv.NewTransportSession()
	ctl.IgnoreCancelNotifications()
	h.modern = modern
	if opts != nil {
		h.opts = *opts
	}
	h.opts = h.opts.withDefaults()
	h.bodies.SetTimeout(h.opts.BodyReadTimeout)
	h.cors = newCORS(h.opts.CORS)
	h.policy = httpguard.Policy{AllowedOrigins: h.opts.AllowedOrigins, AllowedHosts: h.opts.AllowedHosts,
		DisableHostCheck: h.opts.DisableHostCheck}
	if h.cors != nil {
		h.policy.AllowedOrigins = append(h.cors.GuardOrigins(), h.policy.AllowedOrigins...)
	}
	h.logger = h.opts.Logger
	h.store = h.opts.EventStore
	if h.store == nil {
		h.store = NewMemoryEventStore(0)
	}
	h.mem, _ = h.store.(*MemoryEventStore)
	h.exitFn = h.exit
	h.work.init()
	if !h.opts.DisableLegacySSE {
		h.legacy = newSSELegacy(h)
	}
	if h.opts.SessionStore != nil {
		h.opts.EventStore = h.store
		h.rep = newReplica(h)
	}
	return h
}

// ServeHTTP serves one request to the MCP endpoint: POST carries a message
// of either era, GET opens a legacy stream (a session's standalone stream, a
// resumed stream, or the 2024-11-05 HTTP+SSE stream), DELETE ends a legacy
// session, OPTIONS is a CORS preflight (Options.CORS).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodOptions {
		if msg := h.policy.Check(r); msg != "" {
			writeError(w, http.StatusForbidden, nil, runtime.CodeInvalidRequest, msg)
			return
		}
		h.serveOptions(w, r)
		return
	}
	r, ok := h.guard(w, r)
	if !ok {
		return
	}
	// A POST is refused during a shutdown once its body tells it is no
	// answer to a request the server sent (see servePOST).
	if h.closing() && r.Method != http.MethodPost {
		writeShuttingDown(w)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodDelete:
		h.serveDELETE(w, r)
	default:
		methodNotAllowed(w, "GET, POST, DELETE", "Method Not Allowed")
	}
}

// writeShuttingDown refuses a request during a shutdown.
func writeShuttingDown(w http.ResponseWriter) {
	writeError(w, http.StatusServiceUnavailable, nil, runtime.CodeServerError, "Service Unavailable: the server is shutting down")
}

// methodNotAllowed answers 405, naming the methods allowed.
func methodNotAllowed(w http.ResponseWriter, allow, message string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, nil, runtime.CodeInvalidRequest, message)
}

// servePOST routes a POST to the era and session its message belongs to.
func (h *Handler) servePOST(w http.ResponseWriter, r *http.Request) {
	sid := httpguard.HeaderValue(r.Header, httpwire.HdrSessionID)
	if sid == "" && h.legacy != nil && r.URL.RawQuery != "" {
		if q := r.URL.Query().Get("sessionId"); q != "" {
			h.legacy.servePOST(w, r, q)
			return
		}
	}
	if !accepts(r.Header, true) {
		writeError(w, http.StatusNotAcceptable, nil, runtime.CodeInvalidRequest,
			"Not Acceptable: the client must accept application/json and text/event-stream")
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	var env envelope
	switch env.parseBody(body) {
	case bodyMalformed:
		writeError(w, http.StatusBadRequest, nil, runtime.CodeParseError, "Parse error")
		return
	case bodyNotMessage:
		writeError(w, http.StatusBadRequest, nil, runtime.CodeInvalidRequest, "Invalid Request: the body is not a JSON-RPC message")
		return
	}
	// During a shutdown only the client's answers to requests the server
	// sent (elicitation/create, say) still get through: the calls waiting
	// for them are among those Shutdown lets finish.
	if h.closing() && (env.Batch || !env.IsResponse()) {
		writeShuttingDown(w)
		return
	}
	if !h.toolScopes(w, r, body, &env) {
		return
	}
	if sid != "" {
		s, err := h.findSession(r, sid)
		if err != nil {
			writeUnavailable(w, body, env.ID)
			return
		}
		if s != nil {
			s.servePOST(w, r, body, &env)
			return
		}
		// A 2026-07-28 request ignores a session id it does not need.
		if !env.Batch && env.modern(r) {
			h.serveModern(w, r, body, &env)
			return
		}
		writeBodyError(w, http.StatusNotFound, body, env.ID, runtime.CodeInvalidRequest, "Not Found: unknown or ended session; send initialize to start a new one")
		return
	}
	switch {
	case env.Batch:
	case env.MethodIs(mcp.MethodInitialize) && !env.modern(r):
		h.initialize(w, r, body, &env)
		return
	case env.modern(r):
		// Even initialize: 2026-07-28 removed it, so a request that says it
		// is of that revision gets what any unknown method gets, 404.
		h.serveModern(w, r, body, &env)
		return
	}
	if !jsonscan.IsJSON(body) {
		writeError(w, http.StatusBadRequest, nil, runtime.CodeParseError, "Parse error")
		return
	}
	// A cancellation needs no session and no answer: the Go SDK's 2026-07-28
	// client sends one without either after cancelling by closing the stream
	// (over HTTP it should not), and takes a 400 as a broken connection.
	if env.ID == nil && env.MethodIs(mcp.NotificationCancelled) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeError(w, http.StatusBadRequest, env.ID, runtime.CodeInvalidRequest,
		"Bad Request: Mcp-Session-Id header is required (send initialize first, or a 2026-07-28 request with its _meta)")
}

// serveGET opens a legacy stream: a session's standalone stream or a resumed
// one with Mcp-Session-Id, the HTTP+SSE stream without.
func (h *Handler) serveGET(w http.ResponseWriter, r *http.Request) {
	sid := httpguard.HeaderValue(r.Header, httpwire.HdrSessionID)
	if sid == "" {
		// A client that declares 2026-07-28 is not an HTTP+SSE client (that
		// revision's GET gets 405), whatever else this endpoint serves.
		if h.legacy != nil && httpguard.HeaderValue(r.Header, httpwire.HdrProtocolVersion) != mcp.Version20260728 {
			h.legacy.serveGET(w, r)
			return
		}
		methodNotAllowed(w, "POST", "Method Not Allowed: GET needs an Mcp-Session-Id (2026-07-28 has no GET stream)")
		return
	}
	s := h.requestSession(w, r, sid)
	if s == nil {
		return
	}
	if !accepts(r.Header, false) {
		writeError(w, http.StatusNotAcceptable, nil, runtime.CodeInvalidRequest, "Not Acceptable: the client must accept text/event-stream")
		return
	}
	if last := httpguard.HeaderValue(r.Header, httpwire.HdrLastEventID); last != "" {
		if h.rep != nil {
			h.rep.resume(w, r, s, last)
			return
		}
		s.resume(w, r, last)
		return
	}
	if h.rep != nil {
		h.rep.serveStandalone(w, r, s)
		return
	}
	s.serveStandalone(w, r)
}

// serveDELETE ends the legacy session named by Mcp-Session-Id.
func (h *Handler) serveDELETE(w http.ResponseWriter, r *http.Request) {
	sid := httpguard.HeaderValue(r.Header, httpwire.HdrSessionID)
	if sid == "" {
		methodNotAllowed(w, "GET, POST", "Method Not Allowed: DELETE needs an Mcp-Session-Id (2026-07-28 has no sessions)")
		return
	}
	s := h.requestSession(w, r, sid)
	if s == nil {
		return
	}
	if h.rep != nil {
		h.rep.deleteSession(w, r, s)
		return
	}
	s.end()
	w.WriteHeader(http.StatusNoContent)
}

// findSession returns the live session with id sid that r may use (see
// sessionOf), or nil; with a SessionStore, after checking it there (an
// error when the store does not answer).
func (h *Handler) findSession(r *http.Request, sid string) (*session, error) {
	if h.rep != nil {
		return h.rep.find(r, sid)
	}
	return h.sessionOf(r, sid), nil
}

// session returns the live session with id sid, or nil.
func (h *Handler) session(sid string) *session {
	h.mu.RLock()
	s := h.sessions[sid]
	h.mu.RUnlock()
	return s
}

// sessionOf returns the live session with id sid that r may use: one the
// same token subject started (sessions are not a means of authentication,
// and one user's session id is of no use to another), or nil.
func (h *Handler) sessionOf(r *http.Request, sid string) *session {
	s := h.session(sid)
	if s == nil || s.subject != tokenSubject(r) {
		return nil
	}
	return s
}

// requestSession returns the live session a GET or DELETE names, after
// checking the request's MCP-Protocol-Version; otherwise it answers (404 or
// 400) and returns nil.
func (h *Handler) requestSession(w http.ResponseWriter, r *http.Request, sid string) *session {
	s, err := h.findSession(r, sid)
	if err != nil {
		writeUnavailable(w, nil, nil)
		return nil
	}
	if s == nil {
		writeError(w, http.StatusNotFound, nil, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
		return nil
	}
	if !checkLegacyVersion(w, r, nil, nil) {
		return nil
	}
	return s
}

// writeJSON answers with a JSON body in one write, with its length: net/http
// counts a body that fits its response buffer (2 KiB) itself, without
// allocating; a larger one is given its length here, so that it is not
// chunked.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	hdr := w.Header()
	hdr["Content-Type"] = httpwire.ValJSON
	if len(body) > 2048 {
		hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(status)
	if _, err := w.Write(body); err != nil {
		return // the client is gone; nothing more can be said
	}
}
