package mcphttp

import (
	"bytes"
	"crypto/rand"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

// errorBufPool holds the buffers error bodies are built in.
var errorBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// writeError answers with status and a JSON-RPC error response carrying code
// and message: every 4xx and 5xx of the handler has such a body, so a client
// (a dual-era one probing for the newest revision, say) can tell a protocol
// error from a stray HTTP status. id is the raw JSON id of the request, or
// nil when it is not known (the id is then null); an id that is neither a
// string nor an integer is written as null too.
func writeError(w http.ResponseWriter, status int, id []byte, code int, message string) {
	bp := errorBufPool.Get().(*[]byte)
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	if validID(id) {
		b = append(b, id...)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = jsonenc.AppendString(b, message)
	b = append(b, "}}\n"...)

	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	hdr.Del("Content-Encoding")
	w.WriteHeader(status)
	_, _ = w.Write(b)

	if cap(b) <= 4<<10 {
		*bp = b
		errorBufPool.Put(bp)
	}
}

// validID reports whether id may be echoed in an error: a string or an
// integer, as MCP requires (a null or fractional id is refused as the
// session refuses it, with id null). The id must come from a body known to
// be valid JSON (see writeBodyError).
func validID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return len(id) >= 2 && id[len(id)-1] == '"'
	case c == '-' || '0' <= c && c <= '9':
		return !bytes.ContainsAny(id, ".eE")
	}
	return false
}

// writeBodyError answers a request that is refused before the session has
// read its body (a header that disagrees with it, an unknown session, a
// shutdown): with the error given, naming the request's id, when the body is
// valid JSON, and otherwise as every other path answers invalid JSON, 400
// with a parse error and id null. So no raw id that is not JSON ("id":01)
// is ever echoed. A request without a body (a GET) has nil.
func writeBodyError(w http.ResponseWriter, status int, body, id []byte, code int, message string) {
	if body != nil && (!jsonscan.IsJSON(body)) {
		writeError(w, http.StatusBadRequest, nil, runtime.CodeParseError, "Parse error")
		return
	}
	writeError(w, status, id, code, message)
}

// readBody reads the JSON body of a POST (see httpguard.BodyWatch for its
// bounds). On failure it answers the request itself and returns false: 415
// when the Content-Type is not application/json, 413 when the body is
// larger than Options.MaxBodyBytes, 408 when it does not arrive within
// Options.BodyReadTimeout, 400 when it cannot be read. The returned slice
// belongs to the caller.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !httpguard.IsJSONContentType(httpguard.HeaderValue(r.Header, httpwire.HdrContentType)) {
		writeError(w, http.StatusUnsupportedMediaType, nil, runtime.CodeInvalidRequest,
			"Unsupported Media Type: Content-Type must be application/json")
		return nil, false
	}
	limit := h.opts.MaxBodyBytes
	b, err := h.bodies.ReadBody(w, r, limit)
	switch _, tooLarge := errors.AsType[*http.MaxBytesError](err); {
	case err == nil:
		return b, true
	case tooLarge:
		writeError(w, http.StatusRequestEntityTooLarge, nil, runtime.CodeInvalidRequest,
			"Request Entity Too Large: the body exceeds the limit of "+strconv.FormatInt(limit, 10)+" bytes")
	case errors.Is(err, httpguard.ErrBodyTimeout):
		w.Header().Set("Connection", "close")
		writeError(w, http.StatusRequestTimeout, nil, runtime.CodeInvalidRequest,
			"Request Timeout: the request body did not arrive in time")
	default:
		writeError(w, http.StatusBadRequest, nil, runtime.CodeParseError,
			"Parse error: cannot read the request body: "+err.Error())
	}
	return nil, false
}

// newSessionID returns a new session id: 128 bits or more from crypto/rand,
// written in visible ASCII (base32, 26 characters) as the protocol requires of
// an Mcp-Session-Id, and safe in a URL query.
func newSessionID() string { return rand.Text() }

// replyBufs holds the buffers replies are produced into when they are
// written out before the handler returns (Session.HandleAppend), so that
// the session makes no copy of its own.
var replyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// putReplyBuf gives bp back to replyBufs with reply, the buffer it became
// (it may have grown), unless that is too large to keep.
func putReplyBuf(bp *[]byte, reply []byte) {
	if cap(reply) <= 64<<10 {
		*bp = reply[:0]
		replyBufs.Put(bp)
	}
}
