package metaschema

import (
	"strconv"
	"strings"
)

// HeaderKeyword is MCP's annotation of a tool's input property whose value
// the client mirrors into an Mcp-Param-{name} HTTP header.
const HeaderKeyword = "x-mcp-header"

// CheckHeaders reports the x-mcp-header annotations of root, a tool's input
// schema, that break MCP's rules (server/tools, x-mcp-header), for which a
// client must drop the whole tool: the name must be a non-empty RFC 9110
// token, unique within the schema ignoring case; it may only annotate a
// property of type integer, string or boolean, reached from the root
// through "properties" alone (not items, composition, conditionals or
// references).
func CheckHeaders(root *Node) []Problem {
	h := &headers{seen: map[string]bool{}}
	h.walk(root, true, true)
	return h.problems
}

type headers struct {
	problems []Problem
	seen     map[string]bool // lower-cased names
}

func (h *headers) add(off int, msg string) {
	h.problems = append(h.problems, Problem{Off: off, Msg: msg})
}

// walk checks schema n, which is a property reached through "properties"
// alone when byProps is set.
func (h *headers) walk(n *Node, root, byProps bool) {
	if n == nil || n.Kind != Object {
		return
	}
	if v := n.Get(HeaderKeyword); v != nil {
		h.annotation(n, v, !root && byProps)
	}
	for _, m := range n.Members {
		switch keywords[m.Key] {
		case schemaValue:
			h.walk(m.Value, false, false)
		case schemaArray:
			for _, e := range m.Value.Elems {
				h.walk(e, false, false)
			}
		case schemaMap, dependencies:
			for _, p := range m.Value.Members {
				h.walk(p.Value, false, byProps && m.Key == "properties")
			}
		}
	}
}

func (h *headers) annotation(prop, v *Node, placed bool) {
	if !placed {
		h.add(v.Off, `"x-mcp-header" may only annotate a property reached from the root through "properties" alone`)
		return
	}
	if v.Kind != String || v.Str == "" {
		h.add(v.Off, `"x-mcp-header" must be a non-empty string`)
		return
	}
	if i := strings.IndexFunc(v.Str, func(r rune) bool { return !isTokenChar(r) }); i >= 0 {
		h.add(v.Off, `"x-mcp-header" `+quote(v.Str)+` is not an HTTP token (letters, digits and !#$%&'*+-.^_`+"`"+`|~ only)`)
		return
	}
	if key := strings.ToLower(v.Str); h.seen[key] {
		h.add(v.Off, `"x-mcp-header" `+quote(v.Str)+` is used twice in this schema (names are compared ignoring case)`)
	} else {
		h.seen[key] = true
	}
	t := prop.Get("type")
	if t == nil || t.Kind != String || (t.Str != "string" && t.Str != "integer" && t.Str != "boolean") {
		h.add(v.Off, `"x-mcp-header" may only annotate a property of type string, integer or boolean`)
	}
}

func isTokenChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

func quote(s string) string { return strconv.Quote(s) }
