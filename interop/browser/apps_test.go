package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBrowserApp: an MCP App (extension io.modelcontextprotocol/ui) in a
// real browser. A host page (page/apps.mjs) runs the TypeScript SDK's
// client and @modelcontextprotocol/ext-apps' AppBridge against
// examples/notes on another origin: search_notes names its view in _meta,
// the ui:// resource is text/html;profile=mcp-app with _meta.ui, the page
// renders it in an iframe under the CSP it implies, the view initializes
// through the bridge and shows a search_notes result, and its Add button
// calls add_note and search_notes back through the bridge; the server then
// has the note.
func TestBrowserApp(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		var err error
		if chromium, err = exec.LookPath("chromium"); err != nil {
			t.Fatal("chromium is not on PATH (Debian: apt-get install chromium; or set CHROMIUM): this test needs a real browser")
		}
	}
	dir := t.TempDir()
	bundle(t, dir)
	notesBin := build(t, dir, "./examples/notes")
	page := servePages(t, dir, "127.0.0.1:0", "")
	notesURL := startNotes(t, notesBin, page.origin)
	gone := runChromium(t, chromium, dir, page.origin+"/apps.html?"+url.Values{"notes": {notesURL}}.Encode())

	ctx, cancel := context.WithTimeout(context.Background(), pageTimeout)
	defer cancel()
	ctx, stopped := context.WithCancelCause(ctx)
	defer stopped(nil)
	go func() {
		select {
		case <-gone:
			stopped(errors.New("chromium exited"))
		case <-ctx.Done():
		}
	}()
	var r struct {
		ServerExtension json.RawMessage `json:"serverExtension"`
		ToolMeta        struct {
			UI struct {
				ResourceURI string `json:"resourceUri"`
			} `json:"ui"`
			Legacy string `json:"ui/resourceUri"`
		} `json:"toolMeta"`
		URI    string `json:"uri"`
		Listed *struct {
			MIMEType string `json:"mimeType"`
			Title    string `json:"title"`
		} `json:"listed"`
		MIMEType string `json:"mimeType"`
		UI       struct {
			PrefersBorder *bool `json:"prefersBorder"`
		} `json:"ui"`
		CSP        string `json:"csp"`
		AppVersion *struct {
			Name string `json:"name"`
		} `json:"appVersion"`
		Before    []string `json:"before"`
		After     []string `json:"after"`
		Status    string   `json:"status"`
		ViewCalls []string `json:"viewCalls"`
		Server    []string `json:"server"`
	}
	page.result(ctx, t, &r)

	const uri = "ui://notes/board.html"
	if string(r.ServerExtension) != `{}` {
		t.Errorf("the server's extensions[%q] = %s, want {}", "io.modelcontextprotocol/ui", r.ServerExtension)
	}
	if r.ToolMeta.UI.ResourceURI != uri || r.ToolMeta.Legacy != uri || r.URI != uri {
		t.Errorf("search_notes' _meta names %q (flat key %q), the bridge found %q; want %q", r.ToolMeta.UI.ResourceURI, r.ToolMeta.Legacy, r.URI, uri)
	}
	if r.Listed == nil || r.Listed.MIMEType != "text/html;profile=mcp-app" || r.Listed.Title != "Notes board" {
		t.Errorf("resources/list's entry for the view: %+v", r.Listed)
	}
	if r.MIMEType != "text/html;profile=mcp-app" || r.UI.PrefersBorder == nil || !*r.UI.PrefersBorder {
		t.Errorf("resources/read: mimeType %q, _meta.ui.prefersBorder %v", r.MIMEType, r.UI.PrefersBorder)
	}
	if !strings.Contains(r.CSP, "connect-src 'none'") {
		t.Errorf("the CSP the host built from _meta.ui: %q, want no network for the view", r.CSP)
	}
	if r.AppVersion == nil || r.AppVersion.Name != "notes-board" {
		t.Errorf("the view's ui/initialize appInfo: %+v", r.AppVersion)
	}
	if !slices.Equal(r.Before, []string{"from the host"}) {
		t.Errorf("the view rendered %q from the tool result, want the one note", r.Before)
	}
	if !slices.Contains(r.After, "from the view") || !slices.Contains(r.After, "from the host") || r.Status != "2 notes" {
		t.Errorf("after Add, the view shows %q (%q), want both notes", r.After, r.Status)
	}
	if !slices.Equal(r.ViewCalls, []string{"add_note", "search_notes"}) {
		t.Errorf("the view called %q through the bridge, want add_note then search_notes", r.ViewCalls)
	}
	if !slices.Equal(r.Server, []string{"from the view"}) {
		t.Errorf("the server's notes matching \"view\": %q, want the view's note", r.Server)
	}
}
