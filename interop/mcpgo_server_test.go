package interop

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	gomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// TestProgressFromMCPGoServer calls, with rpcgen's client over Streamable
// HTTP (a legacy 2025-11-25 session, which has a standalone GET stream), a
// tool of mcp-go's server that sends 40 progress notifications. mcp-go's
// server writes each on whichever of the session's streams takes it first,
// the call's POST stream or the standalone GET stream: the call's OnProgress
// must hear all 40 (the tool answers once the client heard them, or after
// 10 s). Before, those that went on the GET stream were dropped.
func TestProgressFromMCPGoServer(t *testing.T) {
	const n = 40
	heard := make(chan struct{})
	s := server.NewMCPServer("mcpgo", "1")
	s.AddTool(gomcp.NewTool("count"), func(ctx context.Context, req gomcp.CallToolRequest) (*gomcp.CallToolResult, error) {
		var token any
		if req.Params.Meta != nil {
			token = req.Params.Meta.ProgressToken
		}
		for i := 1; i <= n; i++ {
			if err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": token, "progress": i, "total": n}); err != nil {
				return nil, err
			}
		}
		select {
		case <-heard:
		case <-time.After(10 * time.Second): // bounds the failure; the pass waits for heard
		case <-ctx.Done():
		}
		return gomcp.NewToolResultText("done"), nil
	})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer ts.Close()

	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", HTTPClient: ts.Client(),
		MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	seen := map[float64]bool{}
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "count", OnProgress: func(p mcp.ProgressNotification) {
		mu.Lock()
		defer mu.Unlock()
		seen[p.Progress] = true
		if len(seen) == n {
			close(heard)
		}
	}})
	if err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != n {
		t.Fatalf("heard %d of %d progress notifications", len(seen), n)
	}
}
