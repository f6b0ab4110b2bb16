package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestClientProbeWaitsForSlowServer: over Streamable HTTP every request gets
// an answer, so a dual-era client waits for the answer to server/discover
// however long the server takes (within mcphttpclient.Connect's context) and speaks
// 2026-07-28 with a dual-era server whose answer is slower than
// ProbeTimeout. It used to take the slow server for a legacy one and settle
// on a 2025-11-25 session (TestLoad and the legacy SSE tests failed so under
// load: negotiated "2025-11-25", want "2026-07-28").
func TestClientProbeWaitsForSlowServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcpserver.New(mcp.Implementation{Name: "slow", Version: "1"}, nil)
		h := NewHandler(srv, nil)
		defer h.Close()
		var inits atomic.Int32
		slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				var m struct{ Method string }
				_ = json.Unmarshal(body, &m)
				switch m.Method {
				case "server/discover":
					time.Sleep(10 * mcpclient.DefaultProbeTimeout) // a busy machine, in the bubble's time
				case "initialize":
					inits.Add(1)
				}
			}
			h.ServeHTTP(w, r)
		})
		ts := rpctest.NewPipeServer(t, slow, nil)
		start := time.Now()
		c, err := mcphttpclient.Connect(context.Background(), ts.URL+"/mcp", &mcphttpclient.Options{HTTPClient: ts.Client()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if got := c.ProtocolVersion(); got != mcp.Version20260728 {
			t.Errorf("negotiated %q, want %q: a slow answer is not a legacy server", got, mcp.Version20260728)
		}
		if n := inits.Load(); n != 0 {
			t.Errorf("the client sent initialize %d times to a dual-era server", n)
		}
		if took := time.Since(start); took < 10*mcpclient.DefaultProbeTimeout {
			t.Errorf("mcphttpclient.Connect returned after %v, before the server answered", took)
		}
	})
}
