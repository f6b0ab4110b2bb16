package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
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

var verNames = [numVers]string{"", Version20241105, Version20250326, Version20250618, Version20251125, Version20260728}

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

// serverCapabilities is what the server offers, in every revision.
const serverCapabilities = `{"tools":{"listChanged":false},"logging":{}}`

// encodeFixed pre-encodes the results that do not depend on a request.
func (s *Server) encodeFixed() {
	for v := ver20241105; v <= ver20251125; v++ {
		b := []byte(`{"protocolVersion":"` + verNames[v] + `","capabilities":` + serverCapabilities + `,"serverInfo":`)
		b = appendImplementation(b, s.info, v)
		b = s.appendInstructions(b)
		s.initResults[v] = append(b, '}')
	}
	b := strconv.AppendInt([]byte(`,"ttlMs":`), s.opts.ListTTL.Milliseconds(), 10)
	b = append(b, `,"cacheScope":`...)
	s.cacheFields = runtime.AppendJSONString(b, s.opts.CacheScope)

	b = []byte(`,"resultType":"complete","_meta":{"` + MetaServerInfo + `":`)
	b = appendImplementation(b, s.info, ver20260728)
	s.modernTail = append(b, "}}"...)

	b = []byte(`{"supportedVersions":["` + Version20260728 + `"],"capabilities":` + serverCapabilities)
	b = s.appendInstructions(b)
	b = append(b, s.cacheFields...)
	s.discover = append(b, s.modernTail...)
}

func (s *Server) appendInstructions(b []byte) []byte {
	if s.opts.Instructions == "" {
		return b
	}
	b = append(b, `,"instructions":`...)
	return runtime.AppendJSONString(b, s.opts.Instructions)
}

// appendImplementation appends info with the fields revision v knows.
func appendImplementation(b []byte, info Implementation, v ver) []byte {
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
	b = runtime.AppendJSONString(b, info.Name)
	if info.Title != "" {
		b = append(b, `,"title":`...)
		b = runtime.AppendJSONString(b, info.Title)
	}
	b = append(b, `,"version":`...)
	b = runtime.AppendJSONString(b, info.Version)
	if info.Description != "" {
		b = append(b, `,"description":`...)
		b = runtime.AppendJSONString(b, info.Description)
	}
	if info.WebsiteURL != "" {
		b = append(b, `,"websiteUrl":`...)
		b = runtime.AppendJSONString(b, info.WebsiteURL)
	}
	return append(b, '}')
}

// appendAnnotations appends the hints a sets as a JSON object, or nothing
// when it sets none.
func appendAnnotations(b []byte, a *ToolAnnotations) []byte {
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
		b = runtime.AppendJSONString(b, a.Title)
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
	size := s.opts.PageSize
	if size == 0 {
		size = max(len(tools), 1)
	}
	var pages [][]byte
	for start := 0; ; start += size {
		end := min(start+size, len(tools))
		b := []byte(`{"tools":[`)
		for i, t := range tools[start:end] {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTool(b, t, v)
		}
		b = append(b, ']')
		if end < len(tools) {
			b = append(b, `,"nextCursor":"`...)
			b = append(b, encodeCursor(end)...)
			b = append(b, '"')
		}
		if v.modern() {
			b = append(b, s.cacheFields...)
			b = append(b, s.modernTail...)
		} else {
			b = append(b, '}')
		}
		pages = append(pages, b)
		if end >= len(tools) {
			return pages
		}
	}
}

// appendTool appends the descriptor of t with the fields revision v knows.
func appendTool(b []byte, t *Tool, v ver) []byte {
	b = append(b, `{"name":`...)
	b = runtime.AppendJSONString(b, t.Name)
	if t.Title != "" && v.structured() {
		b = append(b, `,"title":`...)
		b = runtime.AppendJSONString(b, t.Title)
	}
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = runtime.AppendJSONString(b, t.Description)
	}
	b = append(b, `,"inputSchema":`...)
	b = append(b, t.InputSchema...)
	if t.OutputSchema != nil && v.structured() {
		b = append(b, `,"outputSchema":`...)
		b = append(b, t.OutputSchema...)
	}
	if t.Annotations != nil && v.annotations() {
		b = appendAnnotations(b, t.Annotations)
	}
	return append(b, '}')
}

// A cursor is the base64url text of cursorPrefix and the offset of the page's
// first tool: opaque to clients, checked when it comes back.
const cursorPrefix = "tools/list:"

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(offset)))
}

// decodeCursor returns the page a raw JSON cursor value points at, or false
// if it is not one this server made for the current tool list.
func decodeCursor(raw []byte, pageSize, ntools int) (page int, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return 0, false
	}
	dec, err := base64.RawURLEncoding.DecodeString(string(raw[1 : len(raw)-1]))
	if err != nil {
		return 0, false
	}
	rest, found := strings.CutPrefix(string(dec), cursorPrefix)
	if !found {
		return 0, false
	}
	offset, err := strconv.Atoi(rest)
	if err != nil || strconv.Itoa(offset) != rest || pageSize == 0 || offset <= 0 || offset >= ntools || offset%pageSize != 0 {
		return 0, false
	}
	return offset / pageSize, true
}
