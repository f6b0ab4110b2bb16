package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// ver is a protocol revision the server speaks, in release order, so a field
// that appeared in one revision is gated by a comparison.
type ver uint8

const (
	verNone ver = iota
	ver20241105
	ver20250326
	ver20250618
	ver20251125
	ver20260728
	numVers
)

var verNames = [numVers]string{"", mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728}

// Gates for fields that appeared after the first revision.
func (v ver) annotations() bool        { return v >= ver20250326 } // tool annotations, progress message
func (v ver) structured() bool         { return v >= ver20250618 } // title, outputSchema, structuredContent
func (v ver) modern() bool             { return v >= ver20260728 }
func (v ver) implementationFull() bool { return v >= ver20251125 } // Implementation description, websiteUrl

// legacyVersion returns the legacy revision named s, or verNone.
func legacyVersion(s string) ver {
	for v := ver20241105; v <= ver20251125; v++ {
		if verNames[v] == s {
			return v
		}
	}
	return verNone
}

// encodeFixed pre-encodes the pieces of results that depend on nothing
// registered.
func (s *Server) encodeFixed() {
	b := strconv.AppendInt([]byte(`,"ttlMs":`), s.opts.ListTTL.Milliseconds(), 10)
	b = append(b, `,"cacheScope":`...)
	s.cacheFields = jsonenc.AppendString(b, s.opts.CacheScope)

	s.modernInfo = appendImplementation(nil, s.info, ver20260728)
	b = []byte(`,"resultType":"complete","_meta":{"` + mcp.MetaServerInfo + `":`)
	b = append(b, s.modernInfo...)
	s.modernTail = append(b, "}}"...)
}

// appendCapabilities appends the capabilities object of a server offering
// k, as revision v writes it: tools and logging always; resources, prompts
// and completions (a capability from 2025-03-26) when registered; the
// extensions declared (SEP-2133), in every revision.
func appendCapabilities(b []byte, k kinds, exts []mcp.Extension, v ver) []byte {
	b = append(b, `{"tools":{"listChanged":true},"logging":{}`...)
	if k&kindResources != 0 {
		b = append(b, `,"resources":{"subscribe":true,"listChanged":true}`...)
	}
	if k&kindPrompts != 0 {
		b = append(b, `,"prompts":{"listChanged":true}`...)
	}
	if k.completions() && v >= ver20250326 {
		b = append(b, `,"completions":{}`...)
	}
	if len(exts) > 0 {
		b = append(b, `,"extensions":`...)
		b = mcp.AppendExtensions(b, exts)
	}
	return append(b, '}')
}

// encodeHandshake encodes the result that declares what a registry with
// kinds offers: initialize's in a legacy revision, server/discover's in
// 2026-07-28.
func (s *Server) encodeHandshake(k kinds, exts []mcp.Extension, v ver) []byte {
	if v.modern() {
		b := []byte(`{"supportedVersions":["` + mcp.Version20260728 + `"],"capabilities":`)
		b = appendCapabilities(b, k, exts, v)
		b = s.appendInstructions(b)
		b = append(b, s.cacheFields...)
		return append(b, s.modernTail...)
	}
	b := []byte(`{"protocolVersion":"` + verNames[v] + `","capabilities":`)
	b = appendCapabilities(b, k, exts, v)
	b = append(b, `,"serverInfo":`...)
	b = appendImplementation(b, s.info, v)
	b = s.appendInstructions(b)
	return append(b, '}')
}

// endResultMeta closes a result object that may carry a _meta object of its
// own: in 2026-07-28 its members join the serverInfo one.
func (s *Server) endResultMeta(b []byte, v ver, meta []byte) []byte {
	if len(meta) == 0 || !isObject(meta) {
		return s.endResult(b, v)
	}
	if !v.modern() {
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
		return append(b, '}')
	}
	b = append(b, s.modernTail[:len(s.modernTail)-2]...)
	return append(appendMetaMembers(b, meta), '}', '}')
}

// appendMetaMembers appends the members of the _meta object meta, each after
// a comma, but its serverInfo, which the server writes itself; meta that is
// not an object adds nothing.
func appendMetaMembers(b, meta []byte) []byte {
	mo, ok := runtime.ScanObject(meta)
	if !ok {
		return b
	}
	for {
		key, val, ok := mo.Next()
		if !ok {
			return b
		}
		if string(key) == mcp.MetaServerInfo {
			continue
		}
		b = append(b, ',')
		b = jsonenc.AppendString(b, key)
		b = append(b, ':')
		b = append(b, val...)
	}
}

func (s *Server) appendInstructions(b []byte) []byte {
	if s.opts.Instructions == "" {
		return b
	}
	b = append(b, `,"instructions":`...)
	return jsonenc.AppendString(b, s.opts.Instructions)
}

// appendImplementation appends info with the fields revision v knows.
func appendImplementation(b []byte, info mcp.Implementation, v ver) []byte {
	if !v.structured() {
		info.Title = ""
	}
	if !v.implementationFull() {
		info.Description, info.WebsiteURL = "", ""
	}
	// By hand, not with encoding/json: a server encodes these once, at start,
	// where building encoding/json's reflection caches would cost more than
	// the rest of the start-up together.
	b = append(b, `{"name":`...)
	b = jsonenc.AppendString(b, info.Name)
	if info.Title != "" {
		b = append(b, `,"title":`...)
		b = jsonenc.AppendString(b, info.Title)
	}
	b = append(b, `,"version":`...)
	b = jsonenc.AppendString(b, info.Version)
	if info.Description != "" {
		b = append(b, `,"description":`...)
		b = jsonenc.AppendString(b, info.Description)
	}
	if info.WebsiteURL != "" {
		b = append(b, `,"websiteUrl":`...)
		b = jsonenc.AppendString(b, info.WebsiteURL)
	}
	b = appendIcons(b, info.Icons, v)
	return append(b, '}')
}

// appendAnnotations appends the hints a sets as a JSON object, or nothing
// when it sets none.
func appendAnnotations(b []byte, a *mcp.ToolAnnotations) []byte {
	start := len(b)
	sep := func() {
		if len(b) == start {
			b = append(b, `,"annotations":{`...)
		} else {
			b = append(b, ',')
		}
	}
	if a.Title != "" {
		sep()
		b = append(b, `"title":`...)
		b = jsonenc.AppendString(b, a.Title)
	}
	for _, h := range [...]struct {
		name string
		v    *bool
	}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}} {
		if h.v != nil {
			sep()
			b = append(b, '"')
			b = append(b, h.name...)
			b = append(b, `":`...)
			b = strconv.AppendBool(b, *h.v)
		}
	}
	if len(b) > start {
		b = append(b, '}')
	}
	return b
}

// marshal encodes v compactly without escaping <, > and &.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// encodePages pre-encodes the tools/list results of revision v, one per page.
func (s *Server) encodePages(tools []*Tool, v ver) [][]byte {
	return s.encodeToolList(tools, v, false)
}

// encodeToolList encodes the tools/list results of revision v listing
// tools; private marks them cacheScope "private" in 2026-07-28 (a list that
// depends on the caller).
func (s *Server) encodeToolList(tools []*Tool, v ver, private bool) [][]byte {
	pages := s.encodeList("tools", cursorPrefix, len(tools), v, func(b []byte, i int) []byte {
		return appendTool(b, tools[i], v)
	})
	if private && v.modern() && s.opts.CacheScope != "private" {
		for i, p := range pages {
			pages[i] = bytes.Replace(p, s.cacheFields, s.privateCacheFields(), 1)
		}
	}
	return pages
}

// privateCacheFields returns cacheFields with cacheScope "private".
func (s *Server) privateCacheFields() []byte {
	b := strconv.AppendInt([]byte(`,"ttlMs":`), s.opts.ListTTL.Milliseconds(), 10)
	return append(b, `,"cacheScope":"private"`...)
}

// encodeList pre-encodes the results of a paginated list method of revision
// v, one per page: the n items, appended by item, as the member key, and the
// cursors that name prefix.
func (s *Server) encodeList(key, prefix string, n int, v ver, item func(b []byte, i int) []byte) [][]byte {
	size := s.opts.PageSize
	if size == 0 {
		size = max(n, 1)
	}
	var pages [][]byte
	for start := 0; ; start += size {
		end := min(start+size, n)
		b := []byte(`{"` + key + `":[`)
		for i := start; i < end; i++ {
			if i > start {
				b = append(b, ',')
			}
			b = item(b, i)
		}
		b = append(b, ']')
		if end < n {
			b = append(b, `,"nextCursor":"`...)
			b = append(b, encodeCursor(prefix, end)...)
			b = append(b, '"')
		}
		if v.modern() {
			b = append(b, s.cacheFields...)
			b = append(b, s.modernTail...)
		} else {
			b = append(b, '}')
		}
		pages = append(pages, b)
		if end >= n {
			return pages
		}
	}
}

// appendTool appends the descriptor of t with the fields revision v knows.
func appendTool(b []byte, t *Tool, v ver) []byte {
	b = append(b, `{"name":`...)
	b = jsonenc.AppendString(b, t.Name)
	if t.Title != "" && v.structured() {
		b = append(b, `,"title":`...)
		b = jsonenc.AppendString(b, t.Title)
	}
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = jsonenc.AppendString(b, t.Description)
	}
	b = append(b, `,"inputSchema":`...)
	b = append(b, t.InputSchema...)
	if t.OutputSchema != nil && v.structured() {
		b = append(b, `,"outputSchema":`...)
		b = append(b, t.OutputSchema...)
	}
	if v.annotations() {
		a := t.Annotations
		if t.Title != "" && !v.structured() && (a == nil || a.Title == "") {
			// 2025-03-26 has no tool title, only annotations.title: the
			// display name goes there, where its clients look.
			c := mcp.ToolAnnotations{}
			if a != nil {
				c = *a
			}
			c.Title = t.Title
			a = &c
		}
		if a != nil {
			b = appendAnnotations(b, a)
		}
	}
	b = appendIcons(b, t.Icons, v)
	b = appendDescriptorMeta(b, t.Meta, t.Digest, v)
	return append(b, '}')
}

// A cursor is the base64url text of the list's prefix (cursorPrefix for
// tools/list) and the offset of the page's first item: opaque to clients,
// checked when it comes back.
const (
	cursorPrefix    = mcp.MethodToolsList + ":"
	resourcesCursor = mcp.MethodResourcesList + ":"
	templatesCursor = mcp.MethodResourcesTemplatesList + ":"
	promptsCursor   = mcp.MethodPromptsList + ":"
)

func encodeCursor(prefix string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(prefix + strconv.Itoa(offset)))
}

// decodeCursor returns the page of a list of n items with cursors named
// prefix that a raw JSON cursor value points at, or false if it is not one
// this server made for the list as it is now.
func decodeCursor(raw []byte, prefix string, pageSize, n int) (page int, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return 0, false
	}
	dec, err := base64.RawURLEncoding.DecodeString(string(raw[1 : len(raw)-1]))
	if err != nil {
		return 0, false
	}
	rest, found := strings.CutPrefix(string(dec), prefix)
	if !found {
		return 0, false
	}
	offset, err := strconv.Atoi(rest)
	if err != nil || strconv.Itoa(offset) != rest || pageSize == 0 || offset <= 0 || offset >= n || offset%pageSize != 0 {
		return 0, false
	}
	return offset / pageSize, true
}

// listPage returns the pre-encoded page of a list the cursor points at.
func listPage(pages [][]byte, prefix string, pageSize, n int, cursor []byte) (json.RawMessage, error) {
	page := 0
	if cursor != nil && string(cursor) != "null" {
		var ok bool
		if page, ok = decodeCursor(cursor, prefix, pageSize, n); !ok {
			return nil, errInvalidCursor
		}
	}
	return pages[page], nil
}
