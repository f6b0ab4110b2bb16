package mcphttp

import (
	"encoding/base64"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Mcp-Param-* headers (2026-07-28): a tool's input schema may mark
// properties with "x-mcp-header": <Name>, and a client then mirrors the
// argument's value into the header Mcp-Param-<Name>, so that intermediaries
// can route on it. The server checks that each such header agrees with the
// body, and that none is missing when the body has the value. The
// annotations are read from the tool's schema once and cached.

// decodeHeaderValue returns the value an Mcp-Name or Mcp-Param-* header
// carries: its =?base64?…?= form decoded, or the plain value, which must be
// visible ASCII (spaces and tabs allowed inside).
func decodeHeaderValue(v string) (string, bool) {
	const prefix, suffix = "=?base64?", "?="
	if len(v) >= len(prefix)+len(suffix) && strings.HasPrefix(v, prefix) && strings.HasSuffix(v, suffix) {
		enc := v[len(prefix) : len(v)-len(suffix)]
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(enc); err != nil {
				return "", false
			}
		}
		if !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", false
		}
	}
	return v, true
}

// toolParams are the x-mcp-header parameters of one tool's input schema.
type toolParams struct {
	params []paramHeader
}

// paramHeader is one x-mcp-header parameter: its header and where its value
// is in the arguments.
type paramHeader struct {
	header string   // canonical "Mcp-Param-{Name}"
	path   []string // properties keys from the schema root
}

// checkParams checks the Mcp-Param-* headers of a tools/call against its
// arguments.
func (h *Handler) checkParams(hdr http.Header, name, args []byte) (int, string) {
	tp := h.toolParams(name)
	if tp == nil {
		return 0, "" // an unknown tool: the call fails anyway
	}
	for _, p := range tp.params {
		val := argumentAt(args, p.path)
		values := hdr[p.header]
		if val == nil || string(val) == "null" || val[0] == '{' || val[0] == '[' {
			if len(values) > 0 {
				return mcp.CodeHeaderMismatch, "Header mismatch: " + p.header + " header present, but the body has no value for it"
			}
			continue
		}
		switch {
		case len(values) == 0:
			return mcp.CodeHeaderMismatch, "Header mismatch: the " + p.header + " header is required, as the body has its value"
		case len(values) > 1:
			return mcp.CodeHeaderMismatch, "Header mismatch: more than one " + p.header + " header"
		}
		v, ok := decodeHeaderValue(values[0])
		if !ok {
			return mcp.CodeHeaderMismatch, "Header mismatch: the " + p.header + " header value has invalid characters or a malformed base64 encoding"
		}
		if !paramMatches(val, v) {
			return mismatch(p.header, values[0], val)
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
		s, ok := jsonString(val)
		return ok && s == v
	case 't', 'f':
		return string(val) == v
	}
	a, err1 := strconv.ParseFloat(string(val), 64)
	b, err2 := strconv.ParseFloat(v, 64)
	return err1 == nil && err2 == nil && a == b
}

// argumentAt returns the raw value at path in the arguments object, or nil.
func argumentAt(args []byte, path []string) []byte {
	cur := args
	for _, key := range path {
		sc, ok := runtime.ScanObject(cur)
		if !ok {
			return nil
		}
		var found []byte
		for {
			k, v, more := sc.Next()
			if !more {
				break
			}
			if string(k) == key {
				found = v // the last duplicate wins, as in encoding/json
			}
		}
		if found == nil {
			return nil
		}
		cur = found
	}
	return cur
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
	s, ok := jsonString(name)
	if !ok {
		return nil
	}
	schema := h.srv.ToolInputSchema(s)
	if schema == nil {
		return nil
	}
	tp := &toolParams{}
	collectParams(schema, nil, &tp.params, map[string]bool{}, 0)
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

// collectParams finds the x-mcp-header annotations of schema's properties,
// recursively through properties only (the specification allows no other
// path). An invalid or duplicate name is skipped: a client would reject
// the whole tool.
func collectParams(schema []byte, path []string, out *[]paramHeader, seen map[string]bool, depth int) {
	if depth > 32 {
		return
	}
	sc, ok := runtime.ScanObject(schema)
	var props []byte
	for ok {
		k, v, more := sc.Next()
		if !more {
			break
		}
		if string(k) == "properties" {
			props = v
		}
	}
	ps, ok := runtime.ScanObject(props)
	for ok {
		key, sub, more := ps.Next()
		if !more {
			break
		}
		p := append(path[:len(path):len(path)], string(key))
		ss, isObj := runtime.ScanObject(sub)
		for isObj {
			k, v, more := ss.Next()
			if !more {
				break
			}
			if string(k) != "x-mcp-header" {
				continue
			}
			name, isString := jsonString(v)
			if !isString || !isToken(name) || seen[strings.ToLower(name)] {
				break
			}
			seen[strings.ToLower(name)] = true
			*out = append(*out, paramHeader{header: textproto.CanonicalMIMEHeaderKey("Mcp-Param-" + name), path: p})
		}
		collectParams(sub, p, out, seen, depth+1)
	}
}

// isToken reports whether s is an HTTP field-name token (RFC 9110 tchar+).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
