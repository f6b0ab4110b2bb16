package mcphttp

import (
	"bytes"
	"net/http"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// servePOST takes one message for the session sessionID: a request (or a
// batch) is answered 202 at once and handled on its own goroutine, a
// notification is handled before its 202; whatever the server says about
// either goes on the session's stream.
func (l *sseLegacy) servePOST(w http.ResponseWriter, r *http.Request, sessionID string) {
	l.mu.Lock()
	sess := l.sessions[sessionID]
	l.mu.Unlock()
	// A session belongs to the token subject that opened it; to anyone else
	// it does not exist.
	if sess == nil || sess.subject != tokenSubject(r) {
		writeError(w, http.StatusNotFound, nil, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
		return
	}
	body, ok := l.h.readBody(w, r)
	if !ok {
		return
	}
	id, code, msg, response := checkMessage(body)
	if code != 0 {
		writeError(w, http.StatusBadRequest, id, code, msg)
		return
	}
	if !response {
		var env envelope
		env.parseBody(body)
		if !l.h.toolScopes(w, r, body, &env) {
			return
		}
	}
	if response {
		// The client's answer to a request the session sent it: handed at
		// once to the call waiting for it, even during a shutdown, which
		// waits for that call.
		sess.ss.Handle(sess.ctx, body, nil)
		writeAccepted(w)
		return
	}
	// A request's answer goes on the stream: none is taken while the stream
	// is full, rather than taken and dropped (notifications need no room).
	if id != nil || bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) {
		switch sess.admit() {
		case http.StatusTooManyRequests:
			writeError(w, http.StatusTooManyRequests, id, runtime.CodeServerError,
				"Too Many Requests: this session's event stream is full; read it before sending more requests")
			return
		case http.StatusServiceUnavailable:
			writeError(w, http.StatusServiceUnavailable, id, runtime.CodeServerError,
				"Service Unavailable: the server's HTTP+SSE streams are full; try again later")
			return
		}
	}
	done, ok := l.h.track()
	if !ok {
		writeError(w, http.StatusServiceUnavailable, nil, runtime.CodeServerError,
			"Service Unavailable: the server is shutting down")
		return
	}
	switch status := l.startCall(sess); status {
	case http.StatusNotFound:
		done()
		writeError(w, status, nil, runtime.CodeInvalidRequest, "Not Found: unknown or ended session")
		return
	case http.StatusTooManyRequests:
		done()
		writeError(w, status, nil, runtime.CodeServerError, "Too Many Requests: too many calls in flight in this session")
		return
	}
	// The call runs for the session's life, not the POST's, which ends now;
	// it sees this POST's token.
	ctx := withTokenInfo(sess.ctx, TokenInfoFromContext(r.Context()), l.h.opts.Auth != nil && l.h.opts.Auth.HideTools)
	if id == nil && !bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) {
		// A notification is handled before the 202: once the client has it,
		// a notifications/cancelled is in effect and nothing more of the
		// request it cancels goes on the stream.
		sess.ss.Handle(ctx, body, sess.send)
		l.endCall(sess)
		done()
		writeAccepted(w)
		return
	}
	go func() {
		defer done()
		defer l.endCall(sess)
		if reply := sess.ss.Handle(ctx, body, sess.send); reply != nil {
			sess.send(reply)
		}
	}()
	writeAccepted(w)
}

// writeAccepted answers a POST of the HTTP+SSE transport.
func writeAccepted(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("Content-Length", "8")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte("Accepted"))
}

// startCall counts a call in for sess; it returns 0 when the call may go
// ahead, or the status refusing it.
func (l *sseLegacy) startCall(sess *sseSession) int {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.ended {
		return http.StatusNotFound
	}
	if sess.calls >= legacyMaxCalls {
		return http.StatusTooManyRequests
	}
	sess.calls++
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
	return 0
}

func (l *sseLegacy) endCall(sess *sseSession) {
	sess.mu.Lock()
	sess.calls--
	sess.mu.Unlock()
	l.mu.Lock()
	l.calls--
	if l.calls == 0 && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
	l.mu.Unlock()
}

// checkMessage checks that body is one JSON-RPC message or a batch, so a
// malformed POST gets 400 rather than a 202 and an error on the stream. It
// returns a zero code for a message to handle, with its id (nil for a
// notification) and response true when it is a response (the client's
// answer to a request the server sent), or the id (when readable), code and
// message of the error to answer with. Batches
// are left to the session, which knows whether its revision has them.
func checkMessage(body []byte) (id []byte, code int, msg string, response bool) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !jsonscan.IsJSON(body) {
		return nil, runtime.CodeParseError, "Parse error: the body is not valid JSON", false
	}
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, 0, "", false
	}
	var env envelope
	if !env.Scan(trimmed) {
		return nil, runtime.CodeInvalidRequest, "Invalid Request: the body is not a JSON-RPC message", false
	}
	id = env.ID
	switch {
	case string(env.JSONRPC) != `"2.0"`:
		return id, runtime.CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`, false
	case env.Method != nil && (len(env.Method) < 2 || env.Method[0] != '"'):
		return id, runtime.CodeInvalidRequest, `Invalid Request: "method" must be a string`, false
	case env.Method != nil && env.ID != nil && !validID(env.ID):
		return nil, runtime.CodeInvalidRequest, "Invalid Request: an MCP request id must be a string or an integer", false
	case env.Method == nil && !(env.ID != nil && (env.Result != nil || env.Error != nil)):
		return id, runtime.CodeInvalidRequest, "Invalid Request: the body is neither a request, a notification nor a response", false
	}
	return id, 0, "", env.Method == nil
}
