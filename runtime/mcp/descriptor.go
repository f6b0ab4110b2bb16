package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
)

// Descriptors (2025-11-25). A tool, a resource, a resource template, a
// prompt and an Implementation may carry icons, and all but the
// Implementation a _meta object (from 2025-06-18); a server sends each to
// the revisions that define it and leaves it out for the others.

// Icon is an image a client may show for a tool, resource, resource
// template, prompt or implementation (2025-11-25 and later).
type Icon struct {
	// Src is the image: an https (or http) URL, or a data: URI holding the
	// image in base64 ("data:image/png;base64,...").
	Src string `json:"src"`
	// MIMEType is the image's type when Src does not say it well
	// ("image/png", "image/svg+xml"), empty otherwise.
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are the sizes the image suits, each "WxH" ("48x48") or "any"
	// (a scalable format); none means any size.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" for an icon drawn for a light background, "dark"
	// for a dark one, empty for either.
	Theme string `json:"theme,omitempty"`
}

// maxIconSrc bounds an icon's src: a data: URI of a few hundred kilobytes
// is already more than a list of tools should carry.
const maxIconSrc = 1 << 20

// CheckIcon reports why ic is not an icon the protocol allows, or nil: a Src
// that is not an http(s) URL or a base64 data: URI of an image, or longer
// than 1 MiB; a MIMEType that is not an image type; a size that is neither
// "WxH" nor "any"; a Theme other than "", "light" and "dark".
func CheckIcon(ic Icon) error {
	if err := checkIconSrc(ic.Src); err != nil {
		return err
	}
	if ic.MIMEType != "" && !imageType(ic.MIMEType) {
		return fmt.Errorf("icon mimeType %q is not an image type (image/png, image/svg+xml, ...)", ic.MIMEType)
	}
	for _, s := range ic.Sizes {
		if !validSize(s) {
			return fmt.Errorf("icon size %q: want WxH (48x48) or any", s)
		}
	}
	switch ic.Theme {
	case "", "light", "dark":
	default:
		return fmt.Errorf("icon theme %q: want light or dark", ic.Theme)
	}
	return nil
}

func checkIconSrc(src string) error {
	switch {
	case src == "":
		return errors.New("icon has no src")
	case len(src) > maxIconSrc:
		return fmt.Errorf("icon src is %d bytes, more than the 1 MiB allowed", len(src))
	}
	for i := 0; i < len(src); i++ {
		if c := src[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("icon src holds a space or control character at byte %d", i)
		}
	}
	scheme, rest, _ := strings.Cut(src, ":")
	switch strings.ToLower(scheme) {
	case "https", "http":
		host, _, _ := strings.Cut(strings.TrimPrefix(rest, "//"), "/")
		if !strings.HasPrefix(rest, "//") || host == "" {
			return fmt.Errorf("icon src %q is not an absolute URL", short(src))
		}
		return nil
	case "data":
		header, data, ok := strings.Cut(rest, ",")
		mime, isBase64 := strings.CutSuffix(header, ";base64")
		if !ok || !isBase64 {
			return errors.New("icon src: a data: URI must hold base64 data (data:image/png;base64,...)")
		}
		if !imageType(mime) {
			return fmt.Errorf("icon src: data: URI of type %q, not an image", mime)
		}
		if _, err := base64.StdEncoding.DecodeString(data); err != nil {
			return fmt.Errorf("icon src: data: URI with bad base64: %v", err)
		}
		return nil
	}
	return fmt.Errorf("icon src %q: want an https URL or a data: URI", short(src))
}

func short(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// imageType reports whether t is a MIME type image/SUBTYPE, without
// parameters.
func imageType(t string) bool {
	sub, ok := strings.CutPrefix(strings.ToLower(t), "image/")
	if !ok || sub == "" {
		return false
	}
	for i := 0; i < len(sub); i++ {
		if c := sub[i]; !alnum(c) && !strings.ContainsRune("!#$&-^_.+", rune(c)) {
			return false
		}
	}
	return true
}

func validSize(s string) bool {
	if s == "any" {
		return true
	}
	w, h, ok := strings.Cut(s, "x")
	return ok && positive(w) && positive(h)
}

func positive(n string) bool {
	if n == "" || n[0] == '0' || len(n) > 6 {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}

// CheckMetaKey reports why key may not name a member of a _meta object, or
// nil. A key is an optional prefix and a name: the prefix is dot-separated
// labels (each starting with a letter, ending with a letter or digit, with
// letters, digits and hyphens between) and a slash; the name, unless empty,
// begins and ends with a letter or digit and holds letters, digits, '-',
// '_' and '.' between.
func CheckMetaKey(key string) error {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		name = key
	} else {
		for label := range strings.SplitSeq(prefix, ".") {
			if !validLabel(label) {
				return fmt.Errorf("_meta key %q: prefix label %q must start with a letter, end with a letter or digit and hold only letters, digits and hyphens", key, label)
			}
		}
	}
	if name == "" {
		if !hasPrefix {
			return errors.New("empty _meta key")
		}
		return nil
	}
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return fmt.Errorf("_meta key %q: name %q must begin and end with a letter or digit", key, name)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Errorf("_meta key %q: name %q may hold only letters, digits, '-', '_' and '.'", key, name)
		}
	}
	return nil
}

// ReservedMetaKey reports whether key's prefix is reserved for the protocol
// itself: one whose second label is modelcontextprotocol or mcp
// (io.modelcontextprotocol/, dev.mcp/).
func ReservedMetaKey(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	return len(labels) >= 2 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp")
}

// CheckMeta reports why raw is not a _meta object a descriptor may carry,
// or nil: it must be a JSON object whose keys CheckMetaKey accepts, each
// once.
func CheckMeta(raw []byte) error {
	o, ok := runtime.ScanObject(raw)
	if !ok || !json.Valid(raw) {
		return errors.New("_meta is not a JSON object")
	}
	seen := map[string]bool{}
	for {
		key, _, ok := o.Next()
		if !ok {
			break
		}
		if err := CheckMetaKey(string(key)); err != nil {
			return err
		}
		if seen[string(key)] {
			return fmt.Errorf("_meta key %q given twice", key)
		}
		seen[string(key)] = true
	}
	return nil
}
