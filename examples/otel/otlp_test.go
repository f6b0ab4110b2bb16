package main

import (
	"bytes"
	"compress/gzip"
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
)

// otlpReceiver is an OTLP/HTTP endpoint (protobuf, as the SDK's exporters
// send by default) that keeps the span and metric names each service sent.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   map[string]map[string]bool // service.name -> span names
	metrics map[string]map[string]bool // service.name -> metric names
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp proto.Message
	o.mu.Lock()
	defer o.mu.Unlock()
	switch r.URL.Path {
	case "/v1/traces":
		var req tracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					add(o.spans, serviceName(rs.Resource.GetAttributes()), s.Name)
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
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					add(o.metrics, serviceName(rm.Resource.GetAttributes()), m.Name)
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

func add(m map[string]map[string]bool, service, name string) {
	if m[service] == nil {
		m[service] = map[string]bool{}
	}
	m[service][name] = true
}

func serviceName(attrs []*commonpb.KeyValue) string {
	for _, kv := range attrs {
		if kv.Key == "service.name" {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

// The example as a user runs it against a collector
// (OTEL_EXPORTER_OTLP_ENDPOINT): both processes, the client and the server
// subprocess that inherits its environment, send their spans to /v1/traces
// and their metrics to /v1/metrics, under their service names.
func TestExampleOTLP(t *testing.T) {
	o := &otlpReceiver{spans: map[string]map[string]bool{}, metrics: map[string]map[string]bool{}}
	ts := httptest.NewServer(o)
	defer ts.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", ts.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "")
	t.Setenv("OTEL_SERVICE_NAME", "")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, "Lisbon"); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if stdout.String() != "" {
		t.Errorf("with an OTLP endpoint the client still wrote to stdout:\n%s", stdout.String())
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	want := map[string]struct{ spans, metrics []string }{
		"weather-client": {
			spans:   []string{"plan a trip", "tools/call forecast"},
			metrics: []string{"mcp.client.operation.duration", "rpcgen.client.active_requests"},
		},
		"weather-server": {
			spans:   []string{"tools/call forecast"},
			metrics: []string{"mcp.server.operation.duration", "rpcgen.server.active_requests"},
		},
	}
	for service, w := range want {
		for _, name := range w.spans {
			if !o.spans[service][name] {
				t.Errorf("%s sent no span %q (spans: %v)", service, name, o.spans)
			}
		}
		for _, name := range w.metrics {
			if !o.metrics[service][name] {
				t.Errorf("%s sent no metric %q (metrics: %v)", service, name, o.metrics)
			}
		}
	}
}
