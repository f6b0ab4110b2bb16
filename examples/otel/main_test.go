package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := serve(context.Background(), os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type span struct {
	Name        string
	SpanContext struct{ TraceID, SpanID string }
	Parent      struct{ SpanID string }
}

// lines decodes the JSON objects of out that decode as a T with a Name.
func spans(out []byte) map[string]span {
	m := map[string]span{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s span
		if json.Unmarshal(sc.Bytes(), &s) == nil && s.Name != "" && s.SpanContext.TraceID != "" {
			m[s.Name] = s
		}
	}
	return m
}

// The example as a user runs it, exporting to stdout and stderr: one trace
// from the client's own span through the tool call's client span to the
// server's span, the server's log record carries the trace id, and both
// sides export their metrics.
func TestExampleOneTrace(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, "Lisbon"); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Lisbon: sunny, 21°C") {
		t.Fatalf("no forecast printed:\n%s", stderr.String())
	}
	client, server := spans(stdout.Bytes()), spans(stderr.Bytes())
	root, call, served := client["plan a trip"], client["tools/call forecast"], server["tools/call forecast"]
	if root.SpanContext.TraceID == "" || call.SpanContext.TraceID == "" || served.SpanContext.TraceID == "" {
		t.Fatalf("missing spans: client %v, server %v", client, server)
	}
	if call.Parent.SpanID != root.SpanContext.SpanID || served.Parent.SpanID != call.SpanContext.SpanID ||
		served.SpanContext.TraceID != root.SpanContext.TraceID {
		t.Fatalf("not one trace: root %+v, client call %+v, server %+v", root, call, served)
	}
	// The metrics, exported at shutdown: the client's and the server's
	// operation durations (server/discover and tools/call) and requests in
	// flight; no session duration, since 2026-07-28 has no session.
	for side, out := range map[string][]byte{"client": stdout.Bytes(), "server": stderr.Bytes()} {
		got := metricNames(out)
		if n := got["mcp."+side+".operation.duration"]; n != 2 {
			t.Errorf("the %s exported %d mcp.%s.operation.duration observations, want 2 (it exported %v)", side, n, side, got)
		}
		if _, ok := got["rpcgen."+side+".active_requests"]; !ok {
			t.Errorf("the %s exported no rpcgen.%[1]s.active_requests (it exported %v)", side, got)
		}
		if n := got["mcp."+side+".session.duration"]; n != 0 {
			t.Errorf("the %s exported %d session durations without a session", side, n)
		}
	}
	var logged bool
	for _, line := range strings.Split(stderr.String(), "\n") {
		logged = logged || strings.Contains(line, `"msg":"forecasting"`) && strings.Contains(line, `"trace_id":"`+root.SpanContext.TraceID+`"`)
	}
	if !logged {
		t.Errorf("the server's log record lacks the trace id:\n%s", stderr.String())
	}
}

// metricNames returns the metrics in the JSON exports (stdoutmetric's) of
// out, with their data points counted (histograms: the observations).
func metricNames(out []byte) map[string]uint64 {
	m := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rm struct {
			ScopeMetrics []struct {
				Metrics []struct {
					Name string
					Data struct {
						DataPoints []struct {
							Count *uint64
							Value any
						}
					}
				}
			}
		}
		if json.Unmarshal(sc.Bytes(), &rm) != nil {
			continue
		}
		for _, sm := range rm.ScopeMetrics {
			for _, mt := range sm.Metrics {
				for _, p := range mt.Data.DataPoints {
					if p.Count != nil {
						m[mt.Name] += *p.Count
					} else {
						m[mt.Name]++
					}
				}
			}
		}
	}
	return m
}
