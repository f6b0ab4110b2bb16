package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestSlowBodies: 2,000 connections that send their headers and the start
// of a body, then stall, are each answered 408 with a JSON-RPC error and
// closed once Options.BodyReadTimeout (30 s by default) has passed, in
// virtual time; a body that arrives in time is served, and the deadline does
// not cut the call that follows (here one that takes a minute).
func TestSlowBodies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcpserver.New(mcp.Implementation{Name: "slow", Version: "1"}, nil)
		srv.AddTools(mcpserver.Tool{Name: "minute", InputSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
				time.Sleep(time.Minute) // the behaviour under test: a call of a minute (virtual time), which no deadline may cut
				return json.RawMessage(`{"ok":true}`), nil
			}})
		h := NewHandler(srv, nil)
		t.Cleanup(func() { h.Close() })
		ts := rpctest.NewPipeServer(t, h, nil)
		dial := ts.Client().Transport.(*http.Transport).DialContext

		body := modernCall(1, "minute", `{}`)
		head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
		rpctest.WantCutAt(t, rpctest.StallBodies(dial, 2000, head), 30*time.Second)

		// In time, and a call longer than the deadline.
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(modernCall(2, "minute", `{}`)))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "minute"} {
			req.Header.Set(k, v)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"ok":true`) {
			t.Fatalf("a call of a minute: %d %s", resp.StatusCode, b)
		}
	})
}
