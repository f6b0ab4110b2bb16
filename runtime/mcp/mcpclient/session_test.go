package mcpclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestInProcessUpdates checks that an in-process client hears what its
// session sends unprompted: a resource update after Subscribe and a list
// change, in a legacy session; and that closing the client ends its
// subscriptions.
func TestInProcessUpdates(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	read := func(_ context.Context, req *mcpserver.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{URI: req.URI, Text: "x"}}, nil
	}
	srv.AddResources(mcpserver.Resource{URI: "test://watched", Name: "watched", Handler: read})
	updated := make(chan string, 4)
	changed := make(chan string, 4)
	ctx := context.Background()
	c, err := mcpclient.ConnectTransport(ctx, srv.InProcess(), mcpclient.Options{
		ProtocolVersion:   mcp.Version20251125,
		OnResourceUpdated: func(uri string) { updated <- uri },
		OnListChanged:     func(method string) { changed <- method },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe(ctx, "test://watched"); err != nil {
		t.Fatal(err)
	}
	srv.ResourceUpdated("test://watched")
	srv.ResourceUpdated("test://other")
	if got := recvWithin(t, updated); got != "test://watched" {
		t.Errorf("updated %q, want test://watched", got)
	}
	srv.AddResources(mcpserver.Resource{URI: "test://late", Name: "late", Handler: read})
	if got := recvWithin(t, changed); got != "notifications/resources/list_changed" {
		t.Errorf("list changed %q", got)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	srv.ResourceUpdated("test://watched")
	select {
	case uri := <-updated:
		t.Errorf("update %q after Close", uri)
	default:
	}
}

func recvWithin(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("nothing arrived within 10s")
		return ""
	}
}
