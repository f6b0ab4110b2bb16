package mcpclient

import (
	"bytes"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// withElicitDefaults returns the content of an accepted form-mode answer
// with every property of the requested schema that has a "default" and that
// the answer leaves out filled in with that default (SEP-1034: a client
// pre-fills the form's fields with their defaults, so a user who accepts
// without touching a field answers with its default). Members the answer
// has are kept as they are, in their order; the defaults follow in the
// schema's order. An answer that is not an object, or a schema without
// defaults, is returned as it is; no content at all counts as {}.
func withElicitDefaults(schema, content json.RawMessage) json.RawMessage {
	props := schemaProperties(schema)
	if props == nil {
		return content
	}
	if clientIsNull(content) {
		content = json.RawMessage(`{}`)
	}
	have := map[string]bool{}
	sc, ok := runtime.ScanObject(content)
	if !ok {
		return content
	}
	for {
		key, _, more := sc.Next()
		if !more {
			break
		}
		have[string(key)] = true
	}
	if sc.Malformed() {
		return content
	}
	var add []byte
	ps, _ := runtime.ScanObject(props)
	for {
		name, prop, more := ps.Next()
		if !more {
			break
		}
		if have[string(name)] {
			continue
		}
		def := wire.Member(prop, "default")
		if def == nil || string(def) == "null" {
			continue
		}
		have[string(name)] = true
		add = append(add, ',')
		add = jsonenc.AppendString(add, name)
		add = append(add, ':')
		add = append(add, def...)
	}
	if add == nil {
		return content
	}
	trimmed := bytes.TrimRight(content, " \t\r\n")
	body := bytes.TrimSpace(trimmed[:len(trimmed)-1]) // without the closing brace
	out := make([]byte, 0, len(body)+len(add)+1)
	out = append(out, body...)
	if bytes.Equal(body, []byte("{")) {
		add = add[1:] // the first member needs no comma
	}
	out = append(out, add...)
	return append(out, '}')
}

// schemaProperties returns the "properties" object of a JSON Schema object,
// or nil.
func schemaProperties(schema []byte) []byte {
	p := wire.Member(schema, "properties")
	if _, ok := runtime.ScanObject(p); !ok {
		return nil
	}
	return p
}
