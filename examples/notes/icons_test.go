package main

import (
	"context"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// TestIcons: the server and the note template show the icon of
// icons/note.svg (//rpcgen:icon file=) as a data: URI, to the revisions that
// have icons (2025-11-25 on), over every connection.
func TestIcons(t *testing.T) {
	for name, c := range connections(t) {
		t.Run(name, func(t *testing.T) {
			want := c.ProtocolVersion() >= mcp.Version20251125
			isNote := func(icons []mcp.Icon) bool {
				return len(icons) == 1 && strings.HasPrefix(icons[0].Src, "data:image/svg+xml;base64,") && len(icons[0].Sizes) == 1 && icons[0].Sizes[0] == "any"
			}
			if got := c.ServerInfo().Icons; isNote(got) != want {
				t.Errorf("server icons %+v, want the note icon: %v", got, want)
			}
			templates, err := c.ListResourceTemplates(context.Background())
			if err != nil || len(templates) != 1 {
				t.Fatalf("templates %+v, %v", templates, err)
			}
			if got := templates[0].Icons; isNote(got) != want {
				t.Errorf("template icons %+v, want the note icon: %v", got, want)
			}
		})
	}
}
