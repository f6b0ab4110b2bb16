package mcphttpclient

import (
	"encoding/json"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

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

// scanClientMessage reads method, the Mcp-Name value (of the methods the
// method table gives a NameHeader) and the modern
// protocol version out of msg.
func scanClientMessage(msg []byte) clientMessage {
	var env httpwire.Envelope
	env.Scan(msg)
	var m clientMessage
	m.method, _ = httpwire.String(env.Method)
	if env.Params == nil {
		return m
	}
	env.ScanParams()
	if m.method == mcp.MethodToolsCall {
		m.args = env.Arguments
	}
	if row := mcp.LookupMethod(m.method); row != nil && row.NameHeader {
		if v := env.Target(row.Target); v != nil {
			m.name, m.hasName = httpwire.String(v)
		}
	}
	m.meta = env.Meta
	m.version, _ = httpwire.String(env.MetaVersion)
	return m
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
	b = jsonenc.AppendString(b, "HTTP "+status)
	return append(b, `}}`...)
}

// clientWithID returns the error response body (which may carry another id, or
// null, as servers answer requests they rejected unread) as the error
// response to request id; ok is false when body holds no JSON-RPC error.
func clientWithID(id int64, body []byte) (reply []byte, ok bool) {
	var env httpwire.Envelope
	if !env.Scan(body) || env.Error == nil || env.Error[0] != '{' {
		return nil, false
	}
	if clientIDIs(env.ID, id) {
		return body, true
	}
	b := make([]byte, 0, len(env.Error)+48)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"error":`...)
	b = append(b, env.Error...)
	return append(b, '}'), true
}

// clientErrorMessage returns the message of the JSON-RPC error in body, or "".
func clientErrorMessage(body []byte) string {
	var env httpwire.Envelope
	if !env.Scan(body) || env.Error == nil {
		return ""
	}
	var e runtime.Error
	if json.Unmarshal(env.Error, &e) != nil {
		return ""
	}
	return e.Error()
}

// clientCancelMessage returns the notifications/cancelled for request id.
func clientCancelMessage(id int64, reason error) []byte {
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","method":"`+mcp.NotificationCancelled+`","params":{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"reason":`...)
	b = jsonenc.AppendString(b, reason.Error())
	return append(b, `}}`...)
}
