package mcphttpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

// A 2026-07-28 tool may mirror arguments into headers: a property of its
// input schema annotated "x-mcp-header": "Region" makes the client send the
// argument's value as Mcp-Param-Region, and the server rejects a tools/call
// without it (-32020). The transport learns the annotations from the
// tools/list results that pass through it; a tools/call to a tool it has
// not seen that the server rejects with -32020 makes it list the tools
// itself and try once more, as the specification suggests. Tools whose
// annotations break the rules are left out of tools/list results (spec:
// clients MUST exclude them) with a warning to the logger.

// clientToolParams returns the x-mcp-header parameters of a tool, and
// whether the transport has seen the tool.
func (t *streamable) clientToolParams(name string) ([]httpwire.ParamHeader, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.params[name]
	return p, ok
}

// setParamHeaders adds the Mcp-Param-* headers of a tools/call.
func (t *streamable) setParamHeaders(h http.Header, m *clientMessage) {
	params, _ := t.clientToolParams(m.name)
	for _, p := range params {
		if v, ok := clientArgument(m.args, p.Path); ok {
			h[p.Header] = []string{httpwire.EncodeHeaderValue(v)}
		}
	}
}

// clientArgument returns the header text of the primitive value at path in
// the arguments object: a string as it is, a number or boolean as written.
// Absent, null and non-primitive values have none.
func clientArgument(args []byte, path []string) (string, bool) {
	v := httpwire.ParamValue(args, path)
	switch {
	case v == nil:
		return "", false
	case v[0] == '"':
		return httpwire.String(v)
	}
	return string(v), true
}

// learnTools records the x-mcp-header parameters of the tools in a
// tools/list reply and returns the reply without the tools whose
// annotations are invalid.
func (t *streamable) learnTools(reply []byte) []byte {
	var env httpwire.Envelope
	if !env.Scan(reply) || env.Result == nil {
		return reply
	}
	var list []json.RawMessage
	if json.Unmarshal(httpwire.Member(env.Result, "tools"), &list) != nil {
		return reply
	}
	learned := make(map[string][]httpwire.ParamHeader, len(list))
	kept := list[:0]
	for _, tool := range list {
		name, params, err := clientToolAnnotations(tool)
		if err != "" {
			t.cfg.logger.Warn("mcphttp: left out a tool with an invalid x-mcp-header annotation", "tool", name, "reason", err)
			continue
		}
		kept = append(kept, tool)
		if name != "" {
			learned[name] = params
		}
	}
	t.mu.Lock()
	if t.params == nil {
		t.params = make(map[string][]httpwire.ParamHeader, len(learned))
	}
	for name, p := range learned {
		t.params[name] = p
	}
	t.mu.Unlock()
	if len(kept) == len(list) {
		return reply
	}
	return clientReplaceTools(reply, env.Result, kept)
}

// clientReplaceTools returns reply with result's tools member replaced by
// tools.
func clientReplaceTools(reply, result []byte, tools []json.RawMessage) []byte {
	var members map[string]json.RawMessage
	if json.Unmarshal(result, &members) != nil {
		return reply
	}
	members["tools"], _ = json.Marshal(tools)
	newResult, err := json.Marshal(members)
	if err != nil {
		return reply
	}
	start := bytes.Index(reply, result) // result is a subslice of reply
	out := make([]byte, 0, len(reply)+len(newResult)-len(result))
	out = append(out, reply[:start]...)
	out = append(out, newResult...)
	return append(out, reply[start+len(result):]...)
}

// clientToolAnnotations reads a tool's name and x-mcp-header parameters;
// problem says why the annotations are invalid, "" when they are not.
func clientToolAnnotations(tool []byte) (name string, params []httpwire.ParamHeader, problem string) {
	var schema []byte
	o, ok := runtime.ScanObject(tool)
	for ok {
		k, v, more := o.Next()
		if !more {
			break
		}
		switch string(k) {
		case "name":
			name, _ = httpwire.String(v)
		case "inputSchema":
			schema = v
		}
	}
	if !bytes.Contains(schema, []byte(`"x-mcp-header"`)) {
		return name, nil, ""
	}
	if params, problem = httpwire.SchemaParams(schema); problem != "" {
		return name, nil, problem
	}
	if clientCountKeys(schema, `"x-mcp-header"`) != len(params) {
		return name, nil, "x-mcp-header outside a chain of properties"
	}
	return name, params, ""
}

// clientCountKeys counts the members named by the quoted key in the JSON
// text b (the key followed by a colon; the same text as a string value does
// not count).
func clientCountKeys(b []byte, key string) int {
	n := 0
	for {
		i := bytes.Index(b, []byte(key))
		if i < 0 {
			return n
		}
		b = b[i+len(key):]
		if rest := bytes.TrimLeft(b, " \t\r\n"); len(rest) > 0 && rest[0] == ':' {
			n++
		}
	}
}

// clientIsHeaderMismatch reports whether reply is an error response with
// code -32020.
func clientIsHeaderMismatch(reply []byte) bool {
	code, ok := httpwire.ReplyError(reply)
	return ok && code == mcp.CodeHeaderMismatch
}

// clientListRequest returns a tools/list request with the given id, cursor
// (none when "") and raw _meta.
func clientListRequest(id int64, cursor string, meta []byte) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"`+mcp.MethodToolsList+`","params":{`...)
	if cursor != "" {
		b = append(b, `"cursor":`...)
		b = jsonenc.AppendString(b, cursor)
		if meta != nil {
			b = append(b, ',')
		}
	}
	if meta != nil {
		b = append(b, `"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, `}}`...)
}

// clientNextCursor returns the nextCursor of a tools/list reply, or "".
func clientNextCursor(reply []byte) string {
	var r struct {
		Result struct {
			NextCursor string `json:"nextCursor"`
		} `json:"result"`
	}
	json.Unmarshal(reply, &r)
	return r.Result.NextCursor
}

// listTools reads tools/list pages (with the _meta of the call that needs
// them) until it learns the parameters of the tool name, and reports
// whether the tool has any.
func (t *streamable) listTools(ctx context.Context, id int64, name string, meta []byte) bool {
	cursor := ""
	for range clientMaxListPages {
		msg := clientListRequest(id, cursor, meta)
		m := scanClientMessage(msg)
		reply, err := t.roundTrip(ctx, id, msg, &m, func([]byte) {})
		if err != nil {
			return false
		}
		t.learnTools(reply)
		if params, known := t.clientToolParams(name); known {
			return len(params) > 0
		}
		if cursor = clientNextCursor(reply); cursor == "" {
			return false
		}
	}
	return false
}

// clientMaxListPages bounds the tools/list pages read to learn a tool's
// annotations.
const clientMaxListPages = 100
