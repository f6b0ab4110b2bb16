package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// BenchmarkClientCallTool measures a typed tools/call through the client
// transports against a server that answers with canned bytes, so the numbers
// are the client's (and net/http's) cost: JSON and event-stream answers, in
// both eras.
func BenchmarkClientCallTool(b *testing.B) {
	for _, era := range []string{mcp.Version20260728, mcp.Version20251125} {
		for _, stream := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/sse=%v", era, stream), func(b *testing.B) {
				benchClientCallTool(b, era, stream)
			})
		}
	}
}

func benchClientCallTool(b *testing.B, era string, stream bool) {
	var n atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m clientTestMsg
		if err := json.Unmarshal(body, &m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch {
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
			return
		case m.Method == "server/discover":
			clientWriteJSON(w, http.StatusOK, clientResult(m, clientDiscoverResult))
			return
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", clientSessionID)
			clientWriteJSON(w, http.StatusOK, clientResult(m, clientInitResult))
			return
		}
		n.Add(1)
		if stream {
			ev := clientEvents(w)
			ev("", "", "", clientResult(m, clientToolResult))
			return
		}
		clientWriteJSON(w, http.StatusOK, clientResult(m, clientToolResult))
	}))
	defer hs.Close()
	c, err := mcphttpclient.Connect(context.Background(), hs.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: era}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	args := struct {
		A int `json:"a"`
		B int `json:"b"`
	}{1, 2}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var sum clientSum
			if err := c.CallTool(context.Background(), "add", args, &sum); err != nil || sum.Sum != 3 {
				b.Errorf("CallTool = %v, %v", sum, err)
				return
			}
		}
	})
}
