package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Gates of the descriptor fields 2025-06-18 and 2025-11-25 added.
func (v ver) descriptorMeta() bool { return v >= ver20250618 } // _meta on tools, resources, templates, prompts
func (v ver) icons() bool          { return v >= ver20251125 } // icons on descriptors and Implementation

// checkDescriptor panics when icons or meta, those of the descriptor what,
// are not what the protocol allows, and returns meta compacted (nil for
// none). A meta holding one of the keys the server writes itself (reserved)
// is refused too.
func checkDescriptor(what string, icons []mcp.Icon, meta json.RawMessage, reserved ...string) json.RawMessage {
	for i, ic := range icons {
		if err := mcp.CheckIcon(ic); err != nil {
			panic(fmt.Sprintf("mcp: %s: icon %d: %v", what, i, err))
		}
	}
	if len(meta) == 0 {
		return nil
	}
	if err := mcp.CheckMeta(meta); err != nil {
		panic(fmt.Sprintf("mcp: %s: Meta: %v", what, err))
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(meta, &keys)
	for _, k := range reserved {
		if _, ok := keys[k]; ok {
			panic(fmt.Sprintf("mcp: %s: Meta holds %q, which the server writes itself", what, k))
		}
	}
	return compactObject(what, "Meta", meta)
}

// appendIcons appends an "icons" member when there are icons and revision v
// has them.
func appendIcons(b []byte, icons []mcp.Icon, v ver) []byte {
	if len(icons) == 0 || !v.icons() {
		return b
	}
	b = append(b, `,"icons":[`...)
	for i, ic := range icons {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"src":`...)
		b = jsonenc.AppendString(b, ic.Src)
		if ic.MIMEType != "" {
			b = append(b, `,"mimeType":`...)
			b = jsonenc.AppendString(b, ic.MIMEType)
		}
		if len(ic.Sizes) > 0 {
			b = append(b, `,"sizes":[`...)
			for j, s := range ic.Sizes {
				if j > 0 {
					b = append(b, ',')
				}
				b = jsonenc.AppendString(b, s)
			}
			b = append(b, ']')
		}
		if ic.Theme != "" {
			b = append(b, `,"theme":`...)
			b = jsonenc.AppendString(b, ic.Theme)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendDescriptorMeta appends the "_meta" member of a descriptor when
// revision v has it: meta's members, after the digest when there is one.
func appendDescriptorMeta(b []byte, meta json.RawMessage, digest string, v ver) []byte {
	if !v.descriptorMeta() || (len(meta) == 0 && digest == "") {
		return b
	}
	if digest == "" {
		b = append(b, `,"_meta":`...)
		return append(b, meta...)
	}
	b = append(b, `,"_meta":{"`+mcp.MetaDigest+`":`...)
	b = jsonenc.AppendString(b, digest)
	return append(appendMetaMembers(b, meta), '}')
}

// cloneIcons copies icons, so that a caller changing its slice after
// registering changes nothing the server lists.
func cloneIcons(icons []mcp.Icon) []mcp.Icon {
	if len(icons) == 0 {
		return nil
	}
	out := make([]mcp.Icon, len(icons))
	for i, ic := range icons {
		ic.Sizes = append([]string(nil), ic.Sizes...)
		out[i] = ic
	}
	return out
}
