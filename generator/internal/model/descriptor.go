package model

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Descriptor fields of 2025-11-25: icons (//rpcgen:icon, on a method for its
// tool, resource or prompt, on an interface for the server's Implementation)
// and a descriptor's _meta (the meta= key of //rpcgen:tool, resource and
// prompt).

// maxIconFile bounds an icon file: its data: URI (a third larger) stays far
// below the 1 MiB mcp.CheckIcon allows, and a list of tools stays small.
const maxIconFile = 256 << 10

// iconTypes are the MIME types of icon files by extension; mime= names any
// other.
var iconTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml",
	".webp": "image/webp", ".gif": "image/gif", ".ico": "image/x-icon",
}

// icons reads the //rpcgen:icon lines starting at d: each gives src= (an
// https URL or a data: URI) or file= (an image file beside the Go file
// holding the directive, which becomes a base64 data: URI), and optionally
// mime=, sizes= (comma-separated, each WxH or any) and theme= (light or
// dark). what names the owner in messages.
func (b *builder) icons(d *Directive, what string) []mcp.Icon {
	var out []mcp.Icon
	for ; d != nil; d = d.Next {
		src, srcPos, hasSrc := d.value("src")
		file, filePos, hasFile := d.value("file")
		ic := mcp.Icon{}
		ic.MIMEType, _, _ = d.value("mime")
		ic.Theme, _, _ = d.value("theme")
		if v, _, ok := d.value("sizes"); ok {
			ic.Sizes = strings.Split(v, ",")
		}
		pos := filePos
		if hasSrc {
			pos = srcPos
		}
		switch {
		case hasSrc == hasFile:
			b.errs.At(d.Pos, "%s: //rpcgen:icon needs src= (a URL or data: URI) or file= (an image file), one of them", what)
			continue
		case hasSrc:
			ic.Src = src
		default:
			var ok bool
			if ic.Src, ok = b.iconFile(d, file, ic.MIMEType, what); !ok {
				continue
			}
			if ic.MIMEType == iconMIME(file) {
				ic.MIMEType = "" // the data: URI says it
			}
		}
		if err := mcp.CheckIcon(ic); err != nil {
			b.errs.At(pos, "%s: //rpcgen:icon: %v", what, err)
			continue
		}
		out = append(out, ic)
	}
	return out
}

func iconMIME(name string) string { return iconTypes[strings.ToLower(filepath.Ext(name))] }

// iconFile reads the icon file name, relative to the directory of the file
// holding d, and returns it as a data: URI of type mime (by default the
// file's extension's).
func (b *builder) iconFile(d *Directive, name, mime, what string) (string, bool) {
	_, pos, _ := d.value("file")
	if name == "" || filepath.IsAbs(name) || !filepath.IsLocal(filepath.FromSlash(name)) {
		b.errs.At(pos, "%s: //rpcgen:icon file=%s: name an image file in or below the directory of the Go file, relative to it", what, name)
		return "", false
	}
	if mime == "" {
		if mime = iconMIME(name); mime == "" {
			b.errs.At(pos, "%s: //rpcgen:icon file=%s: unknown image type; name it with mime=", what, name)
			return "", false
		}
	}
	path := filepath.Join(filepath.Dir(b.pkg.Fset.Position(d.Pos).Filename), filepath.FromSlash(name))
	data, err := b.read(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is the user's, as the directive names it
		}
		b.errs.At(pos, "%s: //rpcgen:icon file=%s: %v", what, name, err)
		return "", false
	}
	if len(data) > maxIconFile {
		b.errs.At(pos, "%s: //rpcgen:icon file=%s: %d bytes, more than the %d KiB an icon may have", what, name, len(data), maxIconFile>>10)
		return "", false
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), true
}

// descriptorMeta reads the meta= key of the directive d (//rpcgen:tool,
// resource or prompt): a JSON object whose keys follow the protocol's _meta
// rules, outside the prefixes the protocol reserves and rpcgen's own
// (io.github.rpcgen/, where the tool digest goes). It returns it compacted,
// nil when there is none.
func (b *builder) descriptorMeta(d *Directive, what string) json.RawMessage {
	v, pos, ok := d.value("meta")
	if !ok {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(v), &obj); err != nil || obj == nil {
		b.errs.At(pos, "%s: //rpcgen:%s meta= must be a JSON object (in backquotes when it holds spaces), not %s", what, d.Name, v)
		return nil
	}
	if err := mcp.CheckMeta([]byte(v)); err != nil {
		b.errs.At(pos, "%s: //rpcgen:%s meta=: %v", what, d.Name, err)
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch {
		case mcp.ReservedMetaKey(k):
			b.errs.At(pos, "%s: //rpcgen:%s meta=: key %q: the prefix is reserved for the protocol", what, d.Name, k)
			return nil
		case strings.HasPrefix(k, "io.github.rpcgen/"):
			b.errs.At(pos, "%s: //rpcgen:%s meta=: key %q: io.github.rpcgen/ is rpcgen's own", what, d.Name, k)
			return nil
		}
	}
	var c bytes.Buffer
	if err := json.Compact(&c, []byte(v)); err != nil {
		b.errs.At(pos, "%s: //rpcgen:%s meta=: %v", what, d.Name, err)
		return nil
	}
	return c.Bytes()
}

// methodDescriptors sets the icons and _meta of the descriptors m has, from
// its directives: an icon on a method that is no tool, resource or prompt
// is an error, as is meta= where the directive makes none.
func (b *builder) methodDescriptors(m *Method, dirs map[string]*Directive) {
	what := "method " + m.Name
	icons := b.icons(dirs["icon"], what)
	switch {
	case m.Tool != nil:
		m.Tool.Icons, m.Tool.Meta = icons, b.descriptorMeta(dirs["tool"], what)
	case m.Resource != nil:
		m.Resource.Icons, m.Resource.Meta = icons, b.descriptorMeta(dirs["resource"], what)
	case m.Prompt != nil:
		m.Prompt.Icons, m.Prompt.Meta = icons, b.descriptorMeta(dirs["prompt"], what)
	default:
		if d := dirs["icon"]; d != nil {
			b.errs.At(d.Pos, "%s: //rpcgen:icon describes a tool, resource or prompt, and the method is none", what)
		}
	}
}
