package mcphttp

import (
	"net/http"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

// The server's side of the Mcp-Param-* headers (see params.go): it checks
// that each header agrees with the body, and that none is missing when the
// body has the value. The annotations are read from the tool's schema once
// and cached.

// toolParams are the x-mcp-header parameters of one tool's input schema.
type toolParams struct {
	params []httpwire.ParamHeader
}

// checkParams checks the Mcp-Param-* headers of a tools/call against its
// arguments.
func (h *Handler) checkParams(hdr http.Header, name, args []byte) (int, string) {
	tp := h.toolParams(name)
	if tp == nil {
		return 0, "" // an unknown tool: the call fails anyway
	}
	for _, p := range tp.params {
		val := httpwire.ParamValue(args, p.Path)
		values := hdr[p.Header]
		if val == nil {
			if len(values) > 0 {
				return mcp.CodeHeaderMismatch, "Header mismatch: " + p.Header + " header present, but the body has no value for it"
			}
			continue
		}
		switch {
		case len(values) == 0:
			return mcp.CodeHeaderMismatch, "Header mismatch: the " + p.Header + " header is required, as the body has its value"
		case len(values) > 1:
			return mcp.CodeHeaderMismatch, "Header mismatch: more than one " + p.Header + " header"
		}
		v, ok := httpwire.DecodeHeaderValue(values[0])
		if !ok {
			return mcp.CodeHeaderMismatch, "Header mismatch: the " + p.Header + " header value has invalid characters or a malformed base64 encoding"
		}
		if !paramMatches(val, v) {
			return mismatch(p.Header, values[0], val)
		}
	}
	return 0, ""
}

// paramMatches reports whether the header value v stands for the primitive
// JSON value val: the same string, the same boolean, or (numerically) the
// same number.
func paramMatches(val []byte, v string) bool {
	switch val[0] {
	case '"':
		s, ok := httpwire.String(val)
		return ok && s == v
	case 't', 'f':
		return string(val) == v
	}
	a, err1 := strconv.ParseFloat(string(val), 64)
	b, err2 := strconv.ParseFloat(v, 64)
	return err1 == nil && err2 == nil && a == b
}

// toolParams returns the x-mcp-header parameters of the tool named by the
// raw JSON string name, or nil for an unknown tool. They are read from the
// tool's schema once, then cached (a tool, once added, never changes).
func (h *Handler) toolParams(name []byte) *toolParams {
	if m := h.params.Load(); m != nil && len(name) >= 2 {
		if tp, ok := (*m)[string(name[1:len(name)-1])]; ok {
			return tp
		}
	}
	s, ok := httpwire.String(name)
	if !ok {
		return nil
	}
	schema := h.srv.ToolInputSchema(s)
	if schema == nil {
		return nil
	}
	tp := &toolParams{}
	tp.params, _ = httpwire.SchemaParams(schema) // invalid names are left out
	h.cacheParams(map[string]*toolParams{s: tp})
	return tp
}

// cacheParams adds add to the cache, which is copied on write: reads take no
// lock.
func (h *Handler) cacheParams(add map[string]*toolParams) {
	h.paramsMu.Lock()
	defer h.paramsMu.Unlock()
	if m := h.params.Load(); m != nil {
		for k, v := range *m {
			if _, ok := add[k]; !ok {
				add[k] = v
			}
		}
	}
	h.params.Store(&add)
}
