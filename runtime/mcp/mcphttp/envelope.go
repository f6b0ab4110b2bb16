package mcphttp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Body kinds envelope.parse tells apart.
const (
	bodyMessage    = iota // an object or an array
	bodyMalformed         // not JSON
	bodyNotMessage        // JSON, but neither an object nor an array
)

// envelope holds what routing and header validation read from a message;
// raw JSON values, nil when absent.
type envelope struct {
	batch                 bool
	id, method            []byte
	name, uri, arguments  []byte // from params
	metaVersion, metaCaps []byte // from params._meta
}

// parse reads the members routing needs, without validating the message
// fully (the session's Handle does that).
func (e *envelope) parse(body []byte) int {
	i := 0
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	if i < len(body) && body[i] == '[' {
		e.batch = true
		return bodyMessage
	}
	sc, ok := runtime.ScanObject(body)
	if !ok {
		if json.Valid(body) {
			return bodyNotMessage
		}
		return bodyMalformed
	}
	var params []byte
	for {
		key, val, more := sc.Next()
		if !more {
			break
		}
		switch string(key) {
		case "id":
			e.id = val
		case "method":
			e.method = val
		case "params":
			params = val
		}
	}
	if sc.Malformed() {
		return bodyMalformed
	}
	if ps, ok := runtime.ScanObject(params); ok {
		for {
			key, val, more := ps.Next()
			if !more {
				break
			}
			switch string(key) {
			case "name":
				e.name = val
			case "uri":
				e.uri = val
			case "arguments":
				e.arguments = val
			case "_meta":
				e.parseMeta(val)
			}
		}
	}
	return bodyMessage
}

func (e *envelope) parseMeta(raw []byte) {
	sc, ok := runtime.ScanObject(raw)
	for ok {
		key, val, more := sc.Next()
		if !more {
			return
		}
		switch string(key) {
		case mcp.MetaProtocolVersion:
			e.metaVersion = val
		case mcp.MetaClientCapabilities:
			e.metaCaps = val
		}
	}
}

// methodIs reports whether the message's method is m.
func (e *envelope) methodIs(m string) bool { return jsonStringIs(e.method, m) }

// isRequest reports whether the message expects a response: a request, or
// a batch (which may hold requests).
func (e *envelope) isRequest() bool { return e.batch || e.method != nil && e.id != nil }

// modern reports whether a message without a session is a 2026-07-28 one:
// its _meta says so, or its MCP-Protocol-Version header, or its method only
// exists in that revision.
func (e *envelope) modern(r *http.Request) bool {
	return e.metaVersion != nil || e.metaCaps != nil ||
		r.Header.Get(hdrProtocolVersion) == mcp.Version20260728 || e.methodIs("server/discover")
}

// jsonStringIs reports whether the raw JSON value v is the string s.
func jsonStringIs(v []byte, s string) bool {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return false
	}
	inner := v[1 : len(v)-1]
	if !hasBackslash(inner) {
		return string(inner) == s
	}
	var u string
	return json.Unmarshal(v, &u) == nil && u == s
}

// jsonString returns the string the raw JSON value v holds, or false.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if inner := v[1 : len(v)-1]; !hasBackslash(inner) {
		return string(inner), true
	}
	var u string
	if json.Unmarshal(v, &u) != nil {
		return "", false
	}
	return u, true
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
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
