// Package rpchttp carries JSON-RPC 2.0 over HTTP POST: NewHandler serves a
// runtime.Handler (such as a dispatcher rpcgen generated) as an http.Handler, and Client
// calls such a server, implementing runtime.Caller for the generated clients.
//
// It is a package of its own so that a program that only talks over stdio, a pipe or a
// subprocess, with package runtime alone, does not link net/http and crypto/tls.
package rpchttp

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
)

// Options configures NewHandler.
type Options struct {
	// MaxMessageSize bounds a request body (default runtime.DefaultMaxMessageSize).
	MaxMessageSize int
	// MaxDepth bounds the nesting depth of a request body (default 128).
	MaxDepth int
	// NoBatches rejects batches with a single Invalid Request error.
	NoBatches bool
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// handler serves JSON-RPC over HTTP POST.
type handler struct {
	proc   *runtime.Processor
	max    int
	logger *slog.Logger
}

// NewHandler returns an http.Handler serving JSON-RPC 2.0 over POST: the body is one
// request or one batch, and the response body its reply (application/json). A body of
// notifications only gets 204 No Content with an empty body; a body over the size limit
// gets 413 with a JSON-RPC error; a method other than POST gets 405 with "Allow: POST".
// As is usual for JSON-RPC over HTTP, protocol errors such as a parse error are 200
// responses carrying the error object, and so is a response POSTed to the server
// (an Invalid Request). A handler's context is the HTTP request's, so a client that
// disconnects cancels it.
func NewHandler(h runtime.Handler, opts Options) http.Handler {
	maxSize := opts.MaxMessageSize
	if maxSize <= 0 {
		maxSize = runtime.DefaultMaxMessageSize
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &handler{
		proc: runtime.NewProcessor(runtime.Options{
			Handler:         h,
			MaxMessageSize:  maxSize,
			MaxDepth:        opts.MaxDepth,
			NoBatches:       opts.NoBatches,
			RejectResponses: true,
			Logger:          logger,
		}),
		max:    maxSize,
		logger: logger,
	}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: JSON-RPC requests are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := h.readBody(w, r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, runtime.AppendErrorResponse(nil, runtime.ID{}, runtime.MessageTooLarge(h.max)))
			return
		}
		h.logger.Debug("jsonrpc: read request body", "err", err)
		http.Error(w, "cannot read request body", http.StatusBadRequest)
		return
	}
	buf := bufferPool.Get().(*[]byte)
	defer putBuffer(buf)
	*buf = h.proc.Process(r.Context(), body, (*buf)[:0])
	if len(*buf) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, *buf)
}

// readBody reads the whole body into a fresh slice, which handlers may keep as params.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > int64(h.max) {
		return nil, &http.MaxBytesError{Limit: int64(h.max)}
	}
	body := http.MaxBytesReader(w, r.Body, int64(h.max))
	if r.ContentLength > 0 {
		buf := make([]byte, r.ContentLength)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(body)
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
