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
// server's span, and the server's log record carries the trace id.
func TestExampleOneTrace(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
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
	var logged bool
	for _, line := range strings.Split(stderr.String(), "\n") {
		logged = logged || strings.Contains(line, `"msg":"forecasting"`) && strings.Contains(line, `"trace_id":"`+root.SpanContext.TraceID+`"`)
	}
	if !logged {
		t.Errorf("the server's log record lacks the trace id:\n%s", stderr.String())
	}
}
