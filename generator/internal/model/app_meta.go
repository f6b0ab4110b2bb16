package model

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The JSON an MCP App puts in descriptors, which the Go server and the API
// documents both show.

// ToolMeta is the _meta of a tool with the view a: _meta.ui (resourceUri,
// visibility), and the flat "ui/resourceUri" older hosts read.
func (a *App) ToolMeta() string {
	uri := strconv.Quote(a.URI) // a checked URI: ASCII without quotes or control characters
	b := []byte(`{"ui":{"resourceUri":` + uri)
	if a.Visibility != nil {
		b = append(b, `,"visibility":`...)
		b = appendStrings(b, a.Visibility)
	}
	b = append(b, `},"ui/resourceUri":`+uri+`}`...)
	return string(b)
}

// UIMeta is the view's _meta.ui object (CSP, permissions, domain, border),
// "" when it sets nothing.
func (a *App) UIMeta() string {
	var members [][]byte
	if a.CSP != nil {
		csp := []byte{'{'}
		for _, k := range AppCSPMembers() {
			if list, ok := a.CSP[k]; ok {
				if len(csp) > 1 {
					csp = append(csp, ',')
				}
				csp = appendStrings(append(strconv.AppendQuote(csp, k), ':'), list)
			}
		}
		members = append(members, append([]byte(`"csp":`), append(csp, '}')...))
	}
	if a.Permissions != nil {
		p := []byte(`"permissions":{`)
		for i, x := range a.Permissions {
			if i > 0 {
				p = append(p, ',')
			}
			p = append(strconv.AppendQuote(p, x), `:{}`...)
		}
		members = append(members, append(p, '}'))
	}
	if a.Domain != "" {
		members = append(members, strconv.AppendQuote([]byte(`"domain":`), a.Domain))
	}
	if a.Border != nil {
		members = append(members, strconv.AppendBool([]byte(`"prefersBorder":`), *a.Border))
	}
	if members == nil {
		return ""
	}
	b := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return string(append(b, '}'))
}

func appendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, s)
	}
	return append(b, ']')
}

// DescriptorMeta is the tool's _meta as tools/list shows it: that of its view
// (ToolMeta) and its meta= object joined, whose keys Build checked apart, the
// view's members first; nil when it has neither.
func (t *Tool) DescriptorMeta() json.RawMessage {
	if t.App == nil {
		return t.Meta
	}
	if len(t.Meta) == 0 {
		return json.RawMessage(t.App.ToolMeta())
	}
	return mergeMeta(t.App.ToolMeta(), t.Meta)
}

func mergeMeta(view string, meta []byte) json.RawMessage {
	inner := bytes.TrimSpace(meta)
	inner = bytes.TrimSpace(inner[1 : len(inner)-1])
	if len(inner) == 0 {
		return json.RawMessage(view)
	}
	out := append([]byte(view[:len(view)-1]), ',')
	out = append(out, inner...)
	return append(out, '}')
}
