package mcphttp

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

// envelope is the message envelope both HTTP sides read
// (httpwire.Envelope), with what only the handler asks of it.
type envelope struct{ httpwire.Envelope }

// Body kinds envelope.parseBody tells apart.
const (
	bodyMessage    = iota // an object or an array
	bodyMalformed         // not JSON
	bodyNotMessage        // JSON, but neither an object nor an array
)

// parseBody reads the members routing needs from a POSTed body, without
// validating the message fully (the session's Handle does that).
func (e *envelope) parseBody(body []byte) int {
	if bytes.HasPrefix(bytes.TrimLeft(body, " \t\n\r"), []byte("[")) {
		e.Batch = true
		return bodyMessage
	}
	if !e.Scan(body) {
		if json.Valid(body) {
			return bodyNotMessage
		}
		return bodyMalformed
	}
	e.ScanParams()
	return bodyMessage
}

// isRequest reports whether the message expects a response: a request, or
// a batch (which may hold requests).
func (e *envelope) isRequest() bool { return e.Batch || e.Method != nil && e.ID != nil }

// modern reports whether a message without a session is a 2026-07-28 one:
// its _meta says so, or its MCP-Protocol-Version header, or its method only
// exists in that revision.
func (e *envelope) modern(r *http.Request) bool {
	return e.MetaVersion != nil || e.MetaCaps != nil ||
		httpguard.HeaderValue(r.Header, httpwire.HdrProtocolVersion) == mcp.Version20260728 || e.MethodIs(mcp.MethodServerDiscover)
}

// legacyStatus is the HTTP status of a legacy JSON reply: 400 for a message
// the server could not take at all, 200 for anything else.
func legacyStatus(reply []byte) int {
	if code, ok := httpwire.ReplyError(reply); ok && (code == runtime.CodeParseError || code == runtime.CodeInvalidRequest) {
		return http.StatusBadRequest
	}
	return http.StatusOK
}
