package mcpclient_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestDescriptorsSeen: the client reads the icons and _meta of the
// descriptors, and the server's icons, in the revisions that carry them,
// and none in one that does not.
func TestDescriptorsSeen(t *testing.T) {
	icons := []mcp.Icon{{Src: "https://example.com/i.png", MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "light"}}
	srv := mcpserver.New(mcp.Implementation{Name: "d", Version: "1", Icons: icons}, nil)
	srv.AddTools(mcpserver.Tool{Name: "t", Icons: icons, Meta: json.RawMessage(`{"ui":{"resourceUri":"ui://t"}}`), Digest: "sha256:ab",
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }})
	srv.AddPrompts(mcpserver.Prompt{Name: "p", Icons: icons, Meta: json.RawMessage(`{"k":1}`),
		Handler: func(context.Context, map[string]string) (*mcp.GetPromptResult, error) { return nil, nil }})
	for _, tc := range []struct {
		version     string
		meta, icons bool
	}{{mcp.Version20250326, false, false}, {mcp.Version20250618, true, false}, {mcp.Version20251125, true, true}, {mcp.Version20260728, true, true}} {
		t.Run(tc.version, func(t *testing.T) {
			ctx := context.Background()
			c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var wantIcons []mcp.Icon
			var toolMeta, promptMeta string
			if tc.icons {
				wantIcons = icons
			}
			if tc.meta {
				toolMeta, promptMeta = `{"io.github.rpcgen/digest":"sha256:ab","ui":{"resourceUri":"ui://t"}}`, `{"k":1}`
			}
			if got := c.ServerInfo().Icons; !reflect.DeepEqual(got, wantIcons) {
				t.Errorf("server icons %+v, want %+v", got, wantIcons)
			}
			tools, err := c.ListTools(ctx)
			if err != nil || len(tools) != 1 {
				t.Fatalf("tools %+v, %v", tools, err)
			}
			if !reflect.DeepEqual(tools[0].Icons, wantIcons) || string(tools[0].Meta) != toolMeta {
				t.Errorf("tool icons %+v, _meta %s; want %+v, %s", tools[0].Icons, tools[0].Meta, wantIcons, toolMeta)
			}
			prompts, err := c.ListPrompts(ctx)
			if err != nil || len(prompts) != 1 {
				t.Fatalf("prompts %+v, %v", prompts, err)
			}
			if !reflect.DeepEqual(prompts[0].Icons, wantIcons) || string(prompts[0].Meta) != promptMeta {
				t.Errorf("prompt icons %+v, _meta %s; want %+v, %s", prompts[0].Icons, prompts[0].Meta, wantIcons, promptMeta)
			}
		})
	}
}
