package metaschema

import (
	"net/url"
	"strconv"
	"strings"
)

// checkRefs reports references that do not resolve inside the document: a
// "$ref" (or "$dynamicRef") must be a fragment, "#" itself, a JSON pointer
// ("#/$defs/address") to a value of the document, or the name of an anchor
// it defines ("#addressDef"). Anything else would be a network reference,
// which rpcgen cannot check and MCP clients must not fetch.
func (c *checker) checkRefs(root *Node) {
	for _, r := range c.refs {
		frag, ok := strings.CutPrefix(r.Str, "#")
		if !ok {
			c.add(r.Off, "reference %q points outside this file: rpcgen resolves only references within it (\"#...\"), and MCP clients must not fetch others", r.Str)
			continue
		}
		if f, err := url.PathUnescape(frag); err == nil {
			frag = f
		}
		switch {
		case frag == "":
		case strings.HasPrefix(frag, "/"):
			if pointer(root, frag) == nil {
				c.add(r.Off, "reference %q does not resolve: the document has no value at %s", r.Str, frag)
			}
		case !c.anchors[frag]:
			c.add(r.Off, "reference %q does not resolve: the document defines no anchor %q", r.Str, frag)
		}
	}
}

// pointer resolves the JSON pointer p (RFC 6901) in n, or returns nil.
func pointer(n *Node, p string) *Node {
	for _, tok := range strings.Split(p, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.Kind {
		case Object:
			n = n.Get(tok)
		case Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Elems) || tok != strconv.Itoa(i) {
				return nil
			}
			n = n.Elems[i]
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return n
}
