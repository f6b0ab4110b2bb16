package httpwire

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// The handler and the client transport slice the members they need out of
// messages (package wire) rather than decoding them, so routing a message
// costs no allocations.

// Envelope holds the raw members of a JSON-RPC message that routing, header
// validation and the client transports read; nil means absent. Scan fills
// the top-level members, scanParams those read from params.
type Envelope struct {
	wire.Envelope
	Batch                      bool   // parseBody: the body is an array
	Name, URI, Arguments, Meta []byte // from params
	MetaVersion, MetaCaps      []byte // from params._meta
	ProgressToken              bool   // params._meta has a progressToken
}

// ScanParams fills, after scan, the members e reads from params and from
// its _meta; params that are not an object have none.
func (e *Envelope) ScanParams() {
	wire.Members(e.Params, func(key, val []byte) {
		switch string(key) {
		case "name":
			e.Name = val
		case "uri":
			e.URI = val
		case "arguments":
			e.Arguments = val
		case "_meta":
			e.Meta = val
			e.scanMeta(val)
		}
	})
}

func (e *Envelope) scanMeta(raw []byte) {
	wire.Members(raw, func(key, val []byte) {
		switch string(key) {
		case mcp.MetaProtocolVersion:
			e.MetaVersion = val
		case mcp.MetaClientCapabilities:
			e.MetaCaps = val
		case "progressToken":
			e.ProgressToken = true
		}
	})
}

// Target returns the raw value of the params member named key, the Target
// of a method table row: name and uri are scanned already.
func (e *Envelope) Target(key string) []byte {
	switch key {
	case "name":
		return e.Name
	case "uri":
		return e.URI
	}
	return Member(e.Params, key)
}

// Member returns the raw value of the member key of the JSON object obj (the
// last one, when there are several, as in encoding/json), or nil when obj is
// not an object or has no such member.
func Member(obj []byte, key string) []byte {
	var found []byte
	wire.Members(obj, func(k, v []byte) {
		if string(k) == key {
			found = v
		}
	})
	return found
}

// String returns the string the raw JSON value v holds, or false. The
// method names and protocol versions the client sends come back without
// allocating.
func String(v []byte) (string, bool) {
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

// ReplyError returns the code of the error the JSON-RPC response reply
// carries; ok is false for a result (or a batch reply).
func ReplyError(reply []byte) (code int64, ok bool) {
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
