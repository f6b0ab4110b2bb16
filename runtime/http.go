package runtime

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
)

// HTTPOptions configures NewHTTPHandler.
type HTTPOptions struct {
	// MaxMessageSize bounds a request body (default DefaultMaxMessageSize).
	MaxMessageSize int
	// MaxDepth bounds the nesting depth of a request body (default 128).
	MaxDepth int
	// NoBatches rejects batches with a single Invalid Request error.
	NoBatches bool
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// httpHandler serves JSON-RPC over HTTP POST.
type httpHandler struct {
	srv server
	max int
}

// NewHTTPHandler returns an http.Handler serving JSON-RPC 2.0 over POST: the body is one
// request or one batch, and the response body its reply (application/json). A body of
// notifications only gets 204 No Content with an empty body; a body over the size limit
// gets 413 with a JSON-RPC error. As is usual for JSON-RPC over HTTP, protocol errors
// such as a parse error are 200 responses carrying the error object. A handler's context
// is the HTTP request's, so a client that disconnects cancels it.
func NewHTTPHandler(h Handler, opts HTTPOptions) http.Handler {
	o := Options{MaxMessageSize: opts.MaxMessageSize, MaxDepth: opts.MaxDepth, Logger: opts.Logger}.withDefaults()
	return &httpHandler{
		srv: server{handler: h, maxDepth: o.MaxDepth, noBatches: opts.NoBatches, logger: o.Logger},
		max: o.MaxMessageSize,
	}
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: JSON-RPC requests are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := h.readBody(w, r)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, appendErrorResponse(nil, nullID, errTooLarge(h.max)))
			return
		}
		h.srv.logger.Debug("jsonrpc: read request body", "err", err)
		http.Error(w, "cannot read request body", http.StatusBadRequest)
		return
	}
	buf := getBuffer()
	defer buf.free()
	buf.b = h.srv.process(r.Context(), body, buf.b)
	if len(buf.b) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, buf.b)
}

// readBody reads the whole body into a fresh slice, which handlers may keep as params.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
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
