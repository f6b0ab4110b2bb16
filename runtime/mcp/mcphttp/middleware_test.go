package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Over Streamable HTTP, client middleware's headers (runtime.WithCallHeaders)
// go out with the request, and both sides' middleware see the session id.
func TestMiddlewareOverHTTP(t *testing.T) {
	var mu sync.Mutex
	var headers, serverIDs, clientIDs []string
	method := func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			if req.Method == "tools/call" {
				mu.Lock()
				serverIDs = append(serverIDs, mcpserver.SessionFromContext(ctx).ID())
				mu.Unlock()
			}
			return next.ServeRPC(ctx, req)
		})
	}
	srv := mcpserver.New(mcp.Implementation{Name: "mw", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{method}})
	srv.AddTools(mcpserver.Tool{Name: "hi", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"hi":true}`), nil
	}})
	h := mcphttp.NewHandler(srv, nil)
	t.Cleanup(func() { h.Close() })
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Traceparent"); v != "" {
			mu.Lock()
			headers = append(headers, v)
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	tp := "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
	mw := func(next mcpclient.Handler) mcpclient.Handler {
		return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
			if req.Method == "tools/call" {
				mu.Lock()
				clientIDs = append(clientIDs, req.SessionID)
				mu.Unlock()
			}
			return next(runtime.WithCallHeaders(ctx, http.Header{"Traceparent": {tp}}), req)
		}
	}
	ctx := context.Background()
	c, err := mcphttpclient.Connect(ctx, hs.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125, Middleware: []mcpclient.Middleware{mw}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CallTool(ctx, "hi", nil, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(headers) == 0 || headers[0] != tp {
		t.Errorf("the server got Traceparent headers %q", headers)
	}
	if len(serverIDs) != 1 || serverIDs[0] == "" || len(clientIDs) != 1 || clientIDs[0] != serverIDs[0] {
		t.Errorf("session ids: server middleware %q, client middleware %q", serverIDs, clientIDs)
	}
}
