// Package rpchttp carries JSON-RPC 2.0 over HTTP POST: NewHandler serves a
// runtime.Handler (such as a dispatcher rpcgen generated) as an http.Handler, and Client
// calls such a server, implementing runtime.Caller for the generated clients.
//
// It is a package of its own so that a program that only talks over stdio, a pipe or a
// subprocess, with package runtime alone, does not link net/http and crypto/tls.
package rpchttp

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
)

// Options configures NewHandler.
type Options struct {
	// MaxMessageSize bounds a request body (default runtime.DefaultMaxMessageSize).
	MaxMessageSize int
	// MaxDepth bounds the nesting depth of a request body (default 128).
	MaxDepth int
	// NoBatches rejects batches with a single Invalid Request error.
	NoBatches bool
	// AllowedOrigins are the origins (scheme://host[:port]) whose browser
	// pages may call the handler besides the server's own origin (and a
	// loopback origin when the server is reached on loopback); "*" admits
	// any. A request with any other Origin, or whose Sec-Fetch-Site says it
	// comes from another site, gets 403: a page cannot make a visitor's
	// browser call the service.
	AllowedOrigins []string
	// AllowedHosts are the Host values a handler on a loopback listener
	// answers besides localhost, 127.0.0.1 and [::1]; any other gets 403,
	// which stops DNS rebinding. An entry without a port admits its name on
	// any port. Listeners that are not loopback do not check Host.
	AllowedHosts []string
	// DisableHostCheck turns the loopback Host check off, for a handler
	// behind a trusted proxy that rewrites Host.
	DisableHostCheck bool
	// CORS, when set, lets the web pages of the origins it lists call the
	// handler from a browser (see CORS); NewHandler panics on a CORS it
	// cannot serve ("*" with credentials, an origin that is not
	// scheme://host[:port]). nil: no CORS, and OPTIONS gets 405.
	CORS *CORS
	// BodyReadTimeout bounds the time a request body may take to arrive; a
	// body still coming after it gets 408 and the connection is closed.
	// Default 30 seconds; negative: none (an http.Server's ReadTimeout, when
	// shorter, still applies).
	BodyReadTimeout time.Duration
	// Middleware wraps the handler, the first outermost (see
	// runtime.Middleware); TransportFromContext says runtime.TransportTCP.
	Middleware []runtime.Middleware
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// handler serves JSON-RPC over HTTP POST.
type handler struct {
	proc   *runtime.Processor
	max    int
	bodies httpguard.BodyWatch // the bodies being read, within Options.BodyReadTimeout
	policy httpguard.Policy
	cors   *httpguard.CORS // nil without Options.CORS
	logger *slog.Logger
}

// NewHandler returns an http.Handler serving JSON-RPC 2.0 over POST: the body is one
// request or one batch, and the response body its reply (application/json). A body of
// notifications only gets 204 No Content with an empty body. As is usual for JSON-RPC
// over HTTP, protocol errors such as a parse error are 200 responses carrying the error
// object, and so is a response POSTed to the server (an Invalid Request). A handler's
// context is the HTTP request's, so a client that disconnects cancels it.
//
// Before the body is read, a request is refused, with a JSON-RPC error body and id null,
// when a web page could have sent it: 403 for a browser page of a foreign origin and for
// a foreign Host on a loopback listener (DNS rebinding; see Options.AllowedOrigins and
// AllowedHosts), 415 for a Content-Type other than application/json (or
// application/json-rpc, application/jsonrequest), which is what a page sends without a
// CORS preflight. A method other than POST gets 405 with "Allow: POST", a body over the
// size limit 413, a body slower than Options.BodyReadTimeout 408. With Options.CORS, a
// CORS preflight (OPTIONS) is answered for the origins it lists and refused with 403
// for others.
func NewHandler(h runtime.Handler, opts Options) http.Handler {
	maxSize := opts.MaxMessageSize
	if maxSize <= 0 {
		maxSize = runtime.DefaultMaxMessageSize
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	policy := httpguard.Policy{AllowedOrigins: opts.AllowedOrigins, AllowedHosts: opts.AllowedHosts,
		DisableHostCheck: opts.DisableHostCheck}
	cors := newCORS(opts.CORS)
	if cors != nil {
		policy.AllowedOrigins = append(cors.GuardOrigins(), policy.AllowedOrigins...)
	}
	hd := &handler{
		proc: runtime.NewProcessor(runtime.Options{
			Handler:         h,
			Middleware:      opts.Middleware,
			Transport:       runtime.TransportTCP,
			MaxMessageSize:  maxSize,
			MaxDepth:        opts.MaxDepth,
			NoBatches:       opts.NoBatches,
			RejectResponses: true,
			Logger:          logger,
		}),
		max:    maxSize,
		policy: policy,
		cors:   cors,
		logger: logger,
	}
	hd.bodies.SetTimeout(opts.BodyReadTimeout)
	return hd
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cors != nil {
		if r.Method == http.MethodOptions && httpguard.IsPreflight(r) {
			h.preflight(w, r)
			return
		}
		// A page of a listed origin reads even a refusal.
		h.cors.SetHeaders(w.Header(), r)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed: JSON-RPC requests are POSTed")
		return
	}
	if msg := h.policy.Check(r); msg != "" {
		writeError(w, http.StatusForbidden, msg)
		return
	}
	if !jsonContentType(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	body, err := h.bodies.ReadBody(w, r, int64(h.max))
	if err != nil {
		switch _, tooLarge := errors.AsType[*http.MaxBytesError](err); {
		case tooLarge:
			writeJSON(w, http.StatusRequestEntityTooLarge, runtime.AppendErrorResponse(nil, runtime.ID{}, runtime.MessageTooLarge(h.max)))
		case errors.Is(err, httpguard.ErrBodyTimeout):
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestTimeout, "Request Timeout: the request body did not arrive in time")
		default:
			h.logger.Debug("jsonrpc: read request body", "err", err)
			writeError(w, http.StatusBadRequest, "Bad Request: cannot read the request body")
		}
		return
	}
	buf := bufferPool.Get().(*[]byte)
	defer putBuffer(buf)
	ctx := r.Context()
	var sink *sseSink
	if acceptsEventStream(r) {
		// A stream method answers with an event stream (see stream.go).
		sink = newSSESink(w)
		ctx = runtime.WithStreamSink(ctx, sink)
	}
	*buf = h.proc.Process(ctx, body, (*buf)[:0])
	if sink != nil && sink.finish(*buf) {
		return
	}
	if len(*buf) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, *buf)
}

// preflight answers a CORS preflight: 403 for an origin or host the policy refuses, or
// a method or header CORS does not allow; 204 with the CORS headers otherwise.
func (h *handler) preflight(w http.ResponseWriter, r *http.Request) {
	msg := h.policy.Check(r)
	if msg == "" {
		msg = h.cors.Preflight(w, r)
	}
	if msg != "" {
		writeError(w, http.StatusForbidden, msg)
	}
}

// jsonContentType reports whether ct declares a JSON body: application/json, or the
// media types older JSON-RPC over HTTP texts name (application/json-rpc,
// application/jsonrequest), with any parameters.
func jsonContentType(ct string) bool {
	if httpguard.IsJSONContentType(ct) {
		return true
	}
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(mt)
	return strings.EqualFold(mt, "application/json-rpc") || strings.EqualFold(mt, "application/jsonrequest")
}

// writeError answers with status and a JSON-RPC Invalid Request error with id null:
// the request was refused before it was read.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, runtime.AppendErrorResponse(nil, runtime.ID{}, runtime.NewError(runtime.CodeInvalidRequest, message)))
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// bufferPool holds the buffers replies are built in.
var bufferPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// putBuffer returns b to the pool unless one huge reply made it too big to keep.
func putBuffer(b *[]byte) {
	if cap(*b) <= 64<<10 {
		bufferPool.Put(b)
	}
}
