package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// App is an MCP App's view (extension io.modelcontextprotocol/ui): an HTML
// document a host fetches as a ui:// resource and renders in a sandboxed
// iframe when a tool whose _meta names it is called. rpcgen generates these
// from //rpcgen:app; a tool names its view in Tool.Meta
// ({"ui":{"resourceUri":URI}}).
type App struct {
	// URI is the view's resource URI: ui://, then at least one more
	// character.
	URI string
	// Name is the resource's programmatic name (required).
	Name string
	// Title and Description describe the view as a resource.
	Title, Description string
	// HTML is the document, served as text of MIME type mcp.AppMIMEType.
	HTML string
	// UI is the view's _meta.ui object, a JSON object (nil for none): the
	// content security policy the host should apply ("csp", with
	// connectDomains, resourceDomains, frameDomains, baseUriDomains), the
	// sandbox permissions it asks for, a dedicated "domain", "prefersBorder".
	// resources/read sends it in the content's _meta.
	UI json.RawMessage
}

// AddApps serves each view as a resource (resources/list and resources/read)
// and declares the MCP Apps extension, once however many times it is called.
// It panics on a programmer error: a URI that is not ui://, an empty Name,
// UI that is not a JSON object, or what AddResources refuses.
func (s *Server) AddApps(apps ...App) {
	rs := make([]Resource, len(apps))
	for i, a := range apps {
		if !strings.HasPrefix(a.URI, mcp.AppURIScheme+"//") || len(a.URI) == len(mcp.AppURIScheme+"//") {
			panic(fmt.Sprintf("mcpserver: AddApps: %q is not a ui:// URI", a.URI))
		}
		var meta json.RawMessage
		if a.UI != nil {
			ui := compactSchema(a.Name, "App.UI", a.UI)
			meta = append(append([]byte(`{"ui":`), ui...), '}')
		}
		rs[i] = Resource{
			URI: a.URI, Name: a.Name, Title: a.Title, Description: a.Description,
			MIMEType: mcp.AppMIMEType, Size: int64(len(a.HTML)),
			Handler: func(_ context.Context, req *ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{URI: a.URI, MIMEType: mcp.AppMIMEType, Text: a.HTML, Meta: meta}}, nil
			},
		}
	}
	s.AddResources(rs...)
	s.declareExtension(mcp.ExtensionApps)
}

// declareExtension adds the extension id, without settings or methods,
// unless the server declares it already.
func (s *Server) declareExtension(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.reg.Load()
	for _, e := range old.exts {
		if e.ID == id {
			return
		}
	}
	r := old.next()
	r.exts = append(old.exts[:len(old.exts):len(old.exts)], mcp.Extension{ID: id, Settings: json.RawMessage(`{}`)})
	s.reg.Store(r.finish())
}
