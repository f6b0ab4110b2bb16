package apidoc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// apiDescriptor is what an MCP client sees of a method's tool, resource or
// prompt beyond the schemas: the descriptor's title, icons and _meta, and a
// tool's MCP App view. The documents show it as OpenRPC's
// "x-mcp-descriptor", a Markdown paragraph and TypeScript doc lines.
type apiDescriptor struct {
	Kind  string          `json:"kind"`          // "tool", "resource", "resourceTemplate" or "prompt"
	Name  string          `json:"name"`          // the name in tools/list, resources/list, prompts/list
	URI   string          `json:"uri,omitempty"` // a resource's URI or URI template
	Title string          `json:"title,omitempty"`
	Icons []mcp.Icon      `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"` // as the list shows it (a tool's view included)
	App   *apiApp         `json:"app,omitempty"`
}

// apiApp is a tool's MCP App view (extension io.modelcontextprotocol/ui):
// the ui:// resource the server serves, whose HTML a host renders.
type apiApp struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType"`
	Meta        json.RawMessage `json:"_meta,omitempty"` // {"ui": CSP, permissions, domain, border}
}

// descriptorOf returns m's apiDescriptor, nil when its descriptor has no
// title (but a tool's derived one), icons, _meta or view, or m is no tool,
// resource or prompt: what the schemas and the method's name already say is
// not repeated.
func descriptorOf(m *model.Method) *apiDescriptor {
	var d *apiDescriptor
	switch {
	case m.Tool != nil:
		t := m.Tool
		d = &apiDescriptor{Kind: "tool", Name: t.Name, Title: t.Title, Icons: t.Icons, Meta: t.DescriptorMeta()}
		if a := t.App; a != nil {
			d.App = &apiApp{URI: a.URI, Name: a.Name, Title: a.Title, Description: a.Description, MIMEType: mcp.AppMIMEType}
			if ui := a.UIMeta(); ui != "" {
				d.App.Meta = json.RawMessage(`{"ui":` + ui + `}`)
			}
		}
	case m.Resource != nil:
		r := m.Resource
		d = &apiDescriptor{Kind: "resource", Name: r.Name, URI: r.URI, Title: r.Title, Icons: r.Icons, Meta: r.Meta}
		if r.Vars != nil {
			d.Kind = "resourceTemplate"
		}
	case m.Prompt != nil:
		p := m.Prompt
		d = &apiDescriptor{Kind: "prompt", Name: p.Name, Title: p.Title, Icons: p.Icons, Meta: p.Meta}
	default:
		return nil
	}
	// Every tool has a title, by default its method's name in words, which
	// says nothing the method's name does not.
	title := d.Title != "" && (m.Tool == nil || d.Title != naming.Title(m.Name))
	if !title && len(d.Icons) == 0 && len(d.Meta) == 0 && d.App == nil {
		return nil
	}
	return d
}

// JSON is the descriptor as OpenRPC's x-mcp-descriptor member.
func (d *apiDescriptor) JSON() (string, error) {
	b, err := json.Marshal(d)
	return string(b), err
}

// KindText names the descriptor's kind in prose.
func (d *apiDescriptor) KindText() string {
	if d.Kind == "resourceTemplate" {
		return "resource template"
	}
	return d.Kind
}

// iconsText describes icons in a line: each one's MIME type, sizes and
// theme, and where it is (a URL, or how many bytes a data: URI holds).
func iconsText(icons []mcp.Icon) string {
	var parts []string
	for _, ic := range icons {
		what := ic.MIMEType
		if what == "" {
			what = dataURIType(ic.Src)
		}
		if what == "" {
			what = "an image"
		}
		var notes []string
		if len(ic.Sizes) > 0 {
			notes = append(notes, "sizes "+strings.Join(ic.Sizes, " "))
		}
		if ic.Theme != "" {
			notes = append(notes, ic.Theme+" theme")
		}
		if strings.HasPrefix(ic.Src, "data:") {
			notes = append(notes, fmt.Sprintf("a data: URI of %d bytes", len(ic.Src)))
		} else {
			notes = append(notes, ic.Src)
		}
		parts = append(parts, what+" ("+strings.Join(notes, ", ")+")")
	}
	return strings.Join(parts, "; ")
}

// docLines describes the descriptor in sentences, for the TypeScript
// client's doc comments.
func (d *apiDescriptor) docLines() []string {
	s := "Over MCP, the " + d.KindText() + " " + d.Name
	if d.URI != "" {
		s += " (" + d.URI + ")"
	}
	if d.Title != "" {
		s += ", titled " + strconvQuote(d.Title)
	}
	s += "."
	if len(d.Icons) > 0 {
		s += " Icons: " + iconsText(d.Icons) + "."
	}
	if len(d.Meta) > 0 {
		s += " _meta: " + string(d.Meta) + "."
	}
	lines := []string{s}
	if a := d.App; a != nil {
		v := "MCP App view " + a.URI + " (" + a.MIMEType
		if a.Title != "" {
			v += ", " + strconvQuote(a.Title)
		}
		v += "): a host that supports MCP Apps renders it with the tool's results."
		if a.Description != "" {
			v += " " + a.Description
		}
		lines = append(lines, v)
	}
	return lines
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// dataURIType is the media type a data: URI names, "" for none.
func dataURIType(src string) string {
	rest, ok := strings.CutPrefix(src, "data:")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, ";,"); i >= 0 {
		return rest[:i]
	}
	return ""
}

// mdCode is s as a Markdown code span, its delimiters longer than any run
// of backticks in s.
func mdCode(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if longest == 0 {
		return "`" + s + "`"
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + s + " " + fence
}
