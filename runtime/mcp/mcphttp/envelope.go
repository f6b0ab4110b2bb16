package mcphttp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// The handler and the client transports slice the members they need out of
// messages (package wire) rather than decoding them, so routing a message
// costs no allocations.

// envelope holds the raw members of a JSON-RPC message that routing, header
// validation and the client transports read; nil means absent. Scan fills
// the top-level members, scanParams those read from params.
type envelope struct {
	wire.Envelope
	batch                      bool   // parseBody: the body is an array
	name, uri, arguments, meta []byte // from params
	metaVersion, metaCaps      []byte // from params._meta
	progressToken              bool   // params._meta has a progressToken
}

// scanParams fills, after scan, the members e reads from params and from
// its _meta; params that are not an object have none.
func (e *envelope) scanParams() {
	wire.Members(e.Params, func(key, val []byte) {
		switch string(key) {
		case "name":
			e.name = val
		case "uri":
			e.uri = val
		case "arguments":
			e.arguments = val
		case "_meta":
			e.meta = val
			e.scanMeta(val)
		}
	})
}

func (e *envelope) scanMeta(raw []byte) {
	wire.Members(raw, func(key, val []byte) {
		switch string(key) {
		case mcp.MetaProtocolVersion:
			e.metaVersion = val
		case mcp.MetaClientCapabilities:
			e.metaCaps = val
		case "progressToken":
			e.progressToken = true
		}
	})
}

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
		e.batch = true
		return bodyMessage
	}
	if !e.Scan(body) {
		if json.Valid(body) {
			return bodyNotMessage
		}
		return bodyMalformed
	}
	e.scanParams()
	return bodyMessage
}

// isRequest reports whether the message expects a response: a request, or
// a batch (which may hold requests).
func (e *envelope) isRequest() bool { return e.batch || e.Method != nil && e.ID != nil }

// modern reports whether a message without a session is a 2026-07-28 one:
// its _meta says so, or its MCP-Protocol-Version header, or its method only
// exists in that revision.
func (e *envelope) modern(r *http.Request) bool {
	return e.metaVersion != nil || e.metaCaps != nil ||
		r.Header.Get(hdrProtocolVersion) == mcp.Version20260728 || e.MethodIs(mcp.MethodServerDiscover)
}

// target returns the raw value of the params member named key, the Target
// of a method table row: name and uri are scanned already.
func (e *envelope) target(key string) []byte {
	switch key {
	case "name":
		return e.name
	case "uri":
		return e.uri
	}
	return member(e.Params, key)
}

// member returns the raw value of the member key of the JSON object obj (the
// last one, when there are several, as in encoding/json), or nil when obj is
// not an object or has no such member.
func member(obj []byte, key string) []byte {
	var found []byte
	wire.Members(obj, func(k, v []byte) {
		if string(k) == key {
			found = v
		}
	})
	return found
}

// jsonString returns the string the raw JSON value v holds, or false. The
// method names and protocol versions the client sends come back without
// allocating.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		var u string
		if json.Unmarshal(v, &u) != nil {
			return "", false
		}
		return u, true
	}
	if fixed, ok := fixedValues[string(inner)]; ok {
		return fixed[0], true
	}
	return string(inner), true
}

var (
	resultMember = []byte(`,"result":`)
	errorMember  = []byte(`,"error":{"code":`)
)

// replyError returns the code of the error the JSON-RPC response reply
// carries; ok is false for a result (or a batch reply).
func replyError(reply []byte) (code int64, ok bool) {
	// The server writes "jsonrpc", then "id", then "result" or "error": look
	// there first, without walking the result.
	const prefix = `{"jsonrpc":"2.0","id":`
	if len(reply) > len(prefix) && string(reply[:len(prefix)]) == prefix {
		rest := reply[len(prefix):]
		end := 0
		if rest[0] == '"' {
			for end = 1; end < len(rest) && rest[end] != '"'; end++ {
				if rest[end] == '\\' {
					end++
				}
			}
			end++
		} else {
			for end < len(rest) && rest[end] != ',' {
				end++
			}
		}
		if end < len(rest) {
			rest = rest[end:]
			if bytes.HasPrefix(rest, resultMember) {
				return 0, false
			}
			if bytes.HasPrefix(rest, errorMember) {
				rest = rest[len(errorMember):]
				n := 0
				for n < len(rest) && (rest[n] == '-' || '0' <= rest[n] && rest[n] <= '9') {
					n++
				}
				if c, err := strconv.ParseInt(string(rest[:n]), 10, 64); err == nil {
					return c, true
				}
			}
		}
	}
	sc, ok := runtime.ScanObject(reply)
	for ok {
		key, val, more := sc.Next()
		if !more {
			break
		}
		if string(key) != "error" {
			continue
		}
		es, _ := runtime.ScanObject(val)
		for {
			k, v, more := es.Next()
			if !more {
				break
			}
			if string(k) == "code" {
				if c, err := strconv.ParseInt(string(v), 10, 64); err == nil {
					return c, true
				}
			}
		}
		return runtime.CodeInternalError, true
	}
	return 0, false
}

// legacyStatus is the HTTP status of a legacy JSON reply: 400 for a message
// the server could not take at all, 200 for anything else.
func legacyStatus(reply []byte) int {
	if code, ok := replyError(reply); ok && (code == runtime.CodeParseError || code == runtime.CodeInvalidRequest) {
		return http.StatusBadRequest
	}
	return http.StatusOK
}
