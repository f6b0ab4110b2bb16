package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	metricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/rpcgen/rpcgen/ext/redis/redistest"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttpclient"
)

// collector is an OTLP/HTTP endpoint (protobuf, the exporters' default)
// that keeps, by "service.name/service.instance.id", the names of the spans
// and metrics sent to it.
type collector struct {
	mu      sync.Mutex
	spans   map[string][]string
	metrics map[string][]string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var resp proto.Message
	switch r.URL.Path {
	case "/v1/traces":
		var req tracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			who := resourceName(rs.Resource.GetAttributes())
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					c.spans[who] = append(c.spans[who], s.Name)
				}
			}
		}
		resp = &tracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var req metricspb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rm := range req.ResourceMetrics {
			who := resourceName(rm.Resource.GetAttributes())
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					c.metrics[who] = append(c.metrics[who], m.Name)
				}
			}
		}
		resp = &metricspb.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, r)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func resourceName(attrs []*commonpb.KeyValue) string {
	var service, instance string
	for _, kv := range attrs {
		switch kv.Key {
		case "service.name":
			service = kv.Value.GetStringValue()
		case "service.instance.id":
			instance = kv.Value.GetStringValue()
		}
	}
	return service + "/" + instance
}

// A replica told an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, as
// docs/operations.md deploys it) exports ext/otel's spans and the metrics
// the guide alerts on, as service notes with its name as the instance, by
// the time it has stopped; without the variable it exports nothing
// (TestTwoReplicasOnRedis and the others run so).
func TestReplicaExportsTelemetry(t *testing.T) {
	c := &collector{spans: map[string][]string{}, metrics: map[string][]string{}}
	ts := httptest.NewServer(c)
	defer ts.Close()
	rs := redistest.Start(t)
	r := startReplicaEnv(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + ts.URL, "OTEL_SERVICE_NAME="},
		"--redis", rs.URL(), "--name", "a")
	ctx := context.Background()
	client, err := mcphttpclient.Connect(ctx, r.URL, &mcphttpclient.Options{MCP: mcpclient.Options{ProtocolVersion: mcp.Version20251125}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewNotesMCPClient(client).AddNote(ctx, "measured"); err != nil {
		t.Fatal(err)
	}
	client.Close()
	r.stop(t)

	c.mu.Lock()
	defer c.mu.Unlock()
	has := func(names []string, name string) bool {
		for _, n := range names {
			if n == name {
				return true
			}
		}
		return false
	}
	for _, name := range []string{"mcp.server.operation.duration", "mcp.server.session.duration", "rpcgen.server.active_requests", "rpcgen.mcp.server.active_sessions"} {
		if !has(c.metrics["notes/a"], name) {
			t.Errorf("no metric %s from notes/a: %v", name, c.metrics)
		}
	}
	if !has(c.spans["notes/a"], "tools/call "+NotesAddNoteTool) {
		t.Errorf("no span %q from notes/a: %v", "tools/call "+NotesAddNoteTool, c.spans)
	}
}
