package mcphttp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// TestClientProgressOnStandaloneStream: a legacy server that sends a call's
// progress on the session's standalone GET stream, as mcp-go's server may,
// rather than on the call's own stream: the call's OnProgress hears each
// notification (in order; the server answers the call only once the client
// heard them). Before, the client dropped progress from the standalone
// stream, and the call got its answer after the server's wait with none.
func TestClientProgressOnStandaloneStream(t *testing.T) {
	toGET := make(chan string, 8)
	heard := make(chan struct{})
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, m clientTestMsg) {
		switch {
		case r.Method == http.MethodGet:
			send := clientEvents(w)
			for {
				select {
				case msg := <-toGET:
					send("", "", "", msg)
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			clientWriteJSON(w, http.StatusOK, clientResult(m, clientInitResult))
		case m.Method == "tools/call":
			tok := clientProgressTokenOf(m)
			for n := 1; n <= 3; n++ {
				toGET <- clientProgress(tok, n)
			}
			select {
			case <-heard:
			case <-time.After(10 * time.Second): // bounds the failure; the pass waits for heard
			}
			clientWriteJSON(w, http.StatusOK, clientResult(m, clientToolResult))
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	ctx := context.Background()
	c := clientConnect(ctx, t, f.URL, &mcphttpclient.Options{Transport: "streamable", HTTPClient: f.Client(),
		MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}})
	var got []float64
	res, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "sum", OnProgress: func(p mcp.ProgressNotification) {
		got = append(got, p.Progress)
		if len(got) == 3 {
			close(heard)
		}
	}})
	if err != nil || string(res.StructuredContent) != `{"sum":3}` {
		t.Fatalf("call: %v, %v", res, err)
	}
	if len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("progress heard: %v, want [1 2 3]", got)
	}
}
