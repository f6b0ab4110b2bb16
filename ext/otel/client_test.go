package otel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// points returns the attributes of each data point of the histogram name.
func (tm *telemetry) points(t *testing.T, name string) []map[string]string {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tm.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if m.Name != name || !ok {
				continue
			}
			for _, p := range h.DataPoints {
				a := map[string]string{}
				for _, kv := range p.Attributes.ToSlice() {
					a[string(kv.Key)] = kv.Value.String()
				}
				for range p.Count {
					out = append(out, a)
				}
			}
		}
	}
	return out
}

// Over Streamable HTTP, an MCP client's spans and operation durations say
// where the requests went (network.transport tcp, server.address,
// server.port, network.protocol.name http), and a legacy session's length
// is mcp.client.session.duration, recorded when it ends: with error.type
// session_expired when the server ended it, without when the client
// closed it; a 2026-07-28 client has no session.
func TestMCPClientOverHTTP(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			tm := newTelemetry(t)
			h := mcphttp.NewHandler(newMCPServer(tm.inst), nil)
			t.Cleanup(func() { h.Close() })
			var mu sync.Mutex
			var sid string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if id := r.Header.Get("Mcp-Session-Id"); id != "" {
					mu.Lock()
					sid = id
					mu.Unlock()
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			u, _ := url.Parse(ts.URL)
			renewed := make(chan error, 2)
			ctx := context.Background()
			c, err := mcphttpclient.Connect(ctx, ts.URL+"/mcp", &mcphttpclient.Options{Transport: "streamable", MCP: mcpclient.Options{
				ProtocolVersion: version, Middleware: []mcpclient.Middleware{tm.inst.MCPClient()},
				OnSessionExpired: func(err error) { renewed <- err }}})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.CallTool(ctx, "work", nil, nil); err != nil {
				t.Fatal(err)
			}
			where := map[string]string{"network.transport": "tcp", "server.address": "127.0.0.1", "server.port": u.Port(), "network.protocol.name": "http"}
			wantAttrs(t, tm.span(t, "tools/call work", trace.SpanKindClient), where)
			for _, p := range tm.points(t, "mcp.client.operation.duration") {
				for k, v := range where {
					if p[k] != v {
						t.Errorf("mcp.client.operation.duration point %v: %s = %q, want %q", p, k, p[k], v)
					}
				}
			}
			if n := len(tm.points(t, "mcp.client.session.duration")); n != 0 {
				t.Errorf("%d session durations while the session lives", n)
			}
			if version == mcp.Version20251125 {
				// The server ends the session; the client starts another.
				req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/mcp", nil)
				mu.Lock()
				req.Header.Set("Mcp-Session-Id", sid)
				mu.Unlock()
				req.Header.Set("Mcp-Protocol-Version", version)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if err := c.CallTool(ctx, "work", nil, nil); err != nil {
					t.Fatal(err)
				}
				if err := <-renewed; err != nil {
					t.Fatalf("renewal: %v", err)
				}
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			sessions := tm.points(t, "mcp.client.session.duration")
			if version == mcp.Version20260728 {
				if len(sessions) != 0 {
					t.Errorf("a 2026-07-28 client recorded %d sessions", len(sessions))
				}
				return
			}
			if len(sessions) != 2 {
				t.Fatalf("%d session durations, want 2 (ended by the server, then closed): %v", len(sessions), sessions)
			}
			var expired, closed int
			for _, p := range sessions {
				for k, v := range where {
					if p[k] != v {
						t.Errorf("session duration %v: %s = %q, want %q", p, k, p[k], v)
					}
				}
				if p["mcp.protocol.version"] != version {
					t.Errorf("session duration %v: mcp.protocol.version, want %s", p, version)
				}
				switch p["error.type"] {
				case "session_expired":
					expired++
				case "":
					closed++
				}
			}
			if expired != 1 || closed != 1 {
				t.Errorf("session durations %v: want one session_expired, one without error.type", sessions)
			}
		})
	}
}
