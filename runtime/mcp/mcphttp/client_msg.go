package mcphttp

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// The transports slice the members they need out of messages with
// runtime.ScanObject rather than decoding them, so routing a message costs
// no allocations.

// clientProgressToken returns the raw progressToken of progress params.
func clientProgressToken(params []byte) []byte {
	o, ok := runtime.ScanObject(params)
	for ok {
		key, val, more := o.Next()
		if !more {
			break
		}
		if string(key) == "progressToken" {
			return val
		}
	}
	return nil
}

// clientParseID parses a request id this client sent: a positive decimal
// integer.
func clientParseID(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, n > 0
}

// clientStringIs reports whether the raw JSON value v is the string s
// (written without escapes, as method names are).
func clientStringIs(v []byte, s string) bool {
	return len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s
}

// clientString returns the string for a raw JSON string token, reusing the
// fixed strings for known methods and versions; ok is false when v is not a
// JSON string.
func clientString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	if fixed, ok := clientFixedValues[string(inner)]; ok {
		return fixed[0], true
	}
	return string(inner), true
}

// clientMessage is what the transports need to know about an outgoing
// message.
type clientMessage struct {
	method  string // "" for a response
	name    string // params.name or params.uri for the methods Mcp-Name covers
	hasName bool   // name was found
	args    []byte // params.arguments of tools/call
	meta    []byte // params._meta
	version string // params._meta's protocol version: a 2026-07-28 message
}

// scanClientMessage reads method, the Mcp-Name source and the modern
// protocol version out of msg.
func scanClientMessage(msg []byte) clientMessage {
	var m clientMessage
	o, ok := runtime.ScanObject(msg)
	if !ok {
		return m
	}
	var params []byte
	for {
		key, val, ok := o.Next()
		if !ok {
			break
		}
		switch string(key) {
		case "method":
			m.method, _ = clientString(val)
		case "params":
			params = val
		}
	}
	if params == nil {
		return m
	}
	nameKey := ""
	switch m.method {
	case "tools/call", "prompts/get":
		nameKey = "name"
	case "resources/read":
		nameKey = "uri"
	}
	p, ok := runtime.ScanObject(params)
	if !ok {
		return m
	}
	for {
		key, val, ok := p.Next()
		if !ok {
			break
		}
		switch {
		case nameKey != "" && string(key) == nameKey:
			m.name, m.hasName = clientString(val)
		case m.method == "tools/call" && string(key) == "arguments":
			m.args = val
		case string(key) == "_meta":
			m.meta = val
			mo, ok := runtime.ScanObject(val)
			for ok {
				k, v, more := mo.Next()
				if !more {
					break
				}
				if string(k) == mcp.MetaProtocolVersion {
					m.version, _ = clientString(v)
				}
			}
		}
	}
	return m
}

// clientEnvelope holds the raw top-level members of a message from the
// server; nil means absent.
type clientEnvelope struct {
	id, method, params, result, errObj []byte
}

// parse fills e from msg and reports whether msg is a well-formed object.
func (e *clientEnvelope) parse(msg []byte) bool {
	o, ok := runtime.ScanObject(msg)
	if !ok {
		return false
	}
	for {
		key, val, ok := o.Next()
		if !ok {
			break
		}
		switch string(key) {
		case "id":
			e.id = val
		case "method":
			e.method = val
		case "params":
			e.params = val
		case "result":
			e.result = val
		case "error":
			e.errObj = val
		}
	}
	return !o.Malformed()
}

// isResponse reports whether e is a response rather than a request or a
// notification.
func (e *clientEnvelope) isResponse() bool {
	return e.method == nil && (e.result != nil || e.errObj != nil)
}

// clientIDIs reports whether the raw id is the integer id.
func clientIDIs(raw []byte, id int64) bool {
	var b [20]byte
	return string(raw) == string(strconv.AppendInt(b[:0], id, 10))
}

// clientErrorReply builds the JSON-RPC error response for request id that
// stands for an HTTP answer that is not one (status is the HTTP status text,
// "405 Method Not Allowed" say); the Client then sees a *runtime.Error, and
// its era probe falls back as the specification asks.
func clientErrorReply(id int64, status string) []byte {
	b := make([]byte, 0, 96+len(status))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"error":{"code":-32600,"message":`...)
	b = runtime.AppendJSONString(b, "HTTP "+status)
	return append(b, `}}`...)
}

// clientWithID returns the error response body (which may carry another id, or
// null, as servers answer requests they rejected unread) as the error
// response to request id; ok is false when body holds no JSON-RPC error.
func clientWithID(id int64, body []byte) (reply []byte, ok bool) {
	var env clientEnvelope
	if !env.parse(body) || env.errObj == nil || env.errObj[0] != '{' {
		return nil, false
	}
	if clientIDIs(env.id, id) {
		return body, true
	}
	b := make([]byte, 0, len(env.errObj)+48)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"error":`...)
	b = append(b, env.errObj...)
	return append(b, '}'), true
}

// clientErrorMessage returns the message of the JSON-RPC error in body, or "".
func clientErrorMessage(body []byte) string {
	var env clientEnvelope
	if !env.parse(body) || env.errObj == nil {
		return ""
	}
	var e runtime.Error
	if json.Unmarshal(env.errObj, &e) != nil {
		return ""
	}
	return e.Error()
}

// clientCancelMessage returns the notifications/cancelled for request id.
func clientCancelMessage(id int64, reason error) []byte {
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"reason":`...)
	b = runtime.AppendJSONString(b, reason.Error())
	return append(b, `}}`...)
}
