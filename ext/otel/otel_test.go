package otel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	rpcotel "github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

var w3c = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// telemetry is an in-memory tracer and meter for one test.
type telemetry struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	inst   *rpcotel.Instrumentation
}

func newTelemetry(t *testing.T) *telemetry {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	return &telemetry{spans: rec, reader: reader, tp: tp,
		inst: rpcotel.New(rpcotel.WithTracerProvider(tp), rpcotel.WithMeterProvider(mp), rpcotel.WithPropagator(w3c))}
}

// span returns the one ended span named name of kind, failing otherwise.
func (tm *telemetry) span(t *testing.T, name string, kind trace.SpanKind) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	var names []string
	for _, s := range tm.spans.Ended() {
		names = append(names, s.Name()+"/"+s.SpanKind().String())
		if s.Name() == name && s.SpanKind() == kind {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s spans named %q; the spans: %v", len(found), kind, name, names)
	}
	return found[0]
}

func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("span %q: %s = %q, want %q (all: %v)", s.Name(), k, got[k], v, got)
		}
	}
}

func wantChild(t *testing.T, child, parent sdktrace.ReadOnlySpan) {
	t.Helper()
	if child.SpanContext().TraceID() != parent.SpanContext().TraceID() || child.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("span %q (trace %s, parent %s) is not a child of %q (trace %s, span %s)", child.Name(),
			child.SpanContext().TraceID(), child.Parent().SpanID(), parent.Name(), parent.SpanContext().TraceID(), parent.SpanContext().SpanID())
	}
}

// metric returns the data points count of a histogram, or the sum of a
// counter, by name.
func (tm *telemetry) metric(t *testing.T, name string) (count uint64, sum int64, found bool) {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := tm.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					count += p.Count
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					sum += p.Value
				}
			}
			return count, sum, true
		}
	}
	return 0, 0, false
}

// JSON-RPC over HTTP in process: client and server spans, the server's the
// child of the client's through the traceparent header, with the
// conventions' attributes, errors, unknown methods, and the metrics.
func TestJSONRPCOverHTTP(t *testing.T) {
	tm := newTelemetry(t)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		switch req.Method {
		case "calc.add":
			return json.RawMessage(`5`), nil
		case "calc.div":
			return nil, runtime.NewError(1001, "division by zero")
		case "calc.fail":
			return nil, errors.New("disk on fire")
		}
		return nil, runtime.ErrMethodNotFound(req.Method)
	})
	srv := httptest.NewServer(tm.inst.HTTPHandler(rpchttp.NewHandler(h, rpchttp.Options{Middleware: []runtime.Middleware{tm.inst.Server()}})))
	t.Cleanup(srv.Close)
	client := runtime.WrapCaller(rpchttp.NewClient(srv.URL), tm.inst.Client())
	ctx := context.Background()
	if n, err := runtime.Call[int](ctx, client, "calc.add", nil); err != nil || n != 5 {
		t.Fatalf("add: %d, %v", n, err)
	}
	clientSpan := tm.span(t, "calc.add", trace.SpanKindClient)
	serverSpan := tm.span(t, "calc.add", trace.SpanKindServer)
	wantChild(t, serverSpan, clientSpan)
	wantAttrs(t, clientSpan, map[string]string{"rpc.system.name": "jsonrpc", "rpc.method": "calc.add", "network.transport": "tcp"})
	wantAttrs(t, serverSpan, map[string]string{"rpc.system.name": "jsonrpc", "rpc.method": "calc.add", "jsonrpc.request.id": "1",
		"network.transport": "tcp", "network.protocol.name": "http", "network.protocol.version": "1.1", "client.address": "127.0.0.1"})
	if _, ok := attrs(serverSpan)["error.type"]; ok || serverSpan.Status().Code == codes.Error {
		t.Errorf("a successful call has error.type or an error status")
	}

	runtime.Call[int](ctx, client, "calc.div", nil)
	for _, kind := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
		s := tm.span(t, "calc.div", kind)
		wantAttrs(t, s, map[string]string{"error.type": "1001", "rpc.status_code": "1001"})
		if s.Status().Code != codes.Error || s.Status().Description != "division by zero" {
			t.Errorf("%s status %+v", kind, s.Status())
		}
	}
	runtime.Call[int](ctx, client, "calc.fail", nil)
	wantAttrs(t, tm.span(t, "calc.fail", trace.SpanKindServer), map[string]string{"error.type": "-32000"})
	runtime.Call[int](ctx, client, "nope", nil)
	wantAttrs(t, tm.span(t, "jsonrpc", trace.SpanKindServer), map[string]string{"rpc.method": "_OTHER", "rpc.method_original": "nope", "error.type": "-32601"})

	if n, _, ok := tm.metric(t, "rpc.server.call.duration"); !ok || n != 4 {
		t.Errorf("rpc.server.call.duration has %d points, want 4", n)
	}
	if n, _, ok := tm.metric(t, "rpc.client.call.duration"); !ok || n != 4 {
		t.Errorf("rpc.client.call.duration has %d points, want 4", n)
	}
	if _, active, ok := tm.metric(t, "rpcgen.server.active_requests"); !ok || active != 0 {
		t.Errorf("active requests %d after the calls (found %v)", active, ok)
	}
}

// workTool reports progress and logs, and fails when asked.
func workTool(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	mcpserver.Progress(ctx, 1, 2, "half way")
	mcpserver.Log(ctx, mcp.LevelInfo, "work", "working")
	if strings.Contains(string(args), "fail") {
		return nil, errors.New("it failed")
	}
	return json.RawMessage(`{"done":true}`), nil
}

func newMCPServer(inst *rpcotel.Instrumentation) *mcpserver.Server {
	srv := mcpserver.New(mcp.Implementation{Name: "traced", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{inst.MCPServer()}})
	srv.AddTools(mcpserver.Tool{Name: "work", Handler: workTool})
	return srv
}

// MCP in process, in both eras: the spans of both sides joined through
// params._meta, named and attributed as the MCP conventions say, with the
// progress and log notifications as events, tool errors, and the session
// metrics.
func TestMCPInProcess(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			tm := newTelemetry(t)
			ctx := context.Background()
			c, err := mcpclient.ConnectTransport(ctx, newMCPServer(tm.inst).InProcess(), mcpclient.Options{ProtocolVersion: version, Middleware: []mcpclient.Middleware{tm.inst.MCPClient()}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.CallToolRaw(ctx, mcp.CallToolParams{Name: "work", OnProgress: func(mcp.ProgressNotification) {}}); err != nil {
				t.Fatal(err)
			}
			var te *mcp.ToolError
			if err := c.CallTool(ctx, "work", map[string]bool{"fail": true}, nil); !errors.As(err, &te) {
				t.Fatalf("failing call: %v", err)
			}
			var clientSpans, serverSpans []sdktrace.ReadOnlySpan
			for _, s := range tm.spans.Ended() {
				if s.Name() != "tools/call work" {
					continue
				}
				if s.SpanKind() == trace.SpanKindClient {
					clientSpans = append(clientSpans, s)
				} else {
					serverSpans = append(serverSpans, s)
				}
			}
			if len(clientSpans) != 2 || len(serverSpans) != 2 {
				t.Fatalf("%d client and %d server tools/call spans, want 2 each", len(clientSpans), len(serverSpans))
			}
			for i := range 2 {
				wantChild(t, serverSpans[i], clientSpans[i])
				for _, s := range []sdktrace.ReadOnlySpan{clientSpans[i], serverSpans[i]} {
					wantAttrs(t, s, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "work",
						"gen_ai.operation.name": "execute_tool", "mcp.protocol.version": version})
				}
			}
			wantAttrs(t, clientSpans[1], map[string]string{"error.type": "tool_error"})
			wantAttrs(t, serverSpans[1], map[string]string{"error.type": "tool_error"})
			if serverSpans[1].Status().Description != "it failed" {
				t.Errorf("server status %+v", serverSpans[1].Status())
			}
			events := map[string]map[string]string{}
			for _, e := range serverSpans[0].Events() {
				m := map[string]string{}
				for _, kv := range e.Attributes {
					m[string(kv.Key)] = kv.Value.String()
				}
				events[e.Name] = m
			}
			if p := events["notifications/progress"]; p["mcp.progress.progress"] != "1" || p["mcp.progress.message"] != "half way" {
				t.Errorf("server span events %v, want the progress", events)
			}
			if version == mcp.Version20251125 {
				if l := events["notifications/message"]; l["mcp.log.level"] != "info" || l["mcp.log.data"] != `"working"` {
					t.Errorf("server span events %v, want the log message", events)
				}
			}
			if len(clientSpans[0].Events()) == 0 || clientSpans[0].Events()[0].Name != "notifications/progress" {
				t.Errorf("client span events %v, want the progress", clientSpans[0].Events())
			}
			if n, _, _ := tm.metric(t, "mcp.server.operation.duration"); n < 2 {
				t.Errorf("mcp.server.operation.duration has %d points", n)
			}
			if n, _, _ := tm.metric(t, "mcp.client.operation.duration"); n < 2 {
				t.Errorf("mcp.client.operation.duration has %d points", n)
			}
			_, live, _ := tm.metric(t, "rpcgen.mcp.server.active_sessions")
			c.Close()
			_, after, _ := tm.metric(t, "rpcgen.mcp.server.active_sessions")
			n, _, _ := tm.metric(t, "mcp.server.session.duration")
			if version == mcp.Version20251125 && (live != 1 || after != 0 || n != 1) {
				t.Errorf("live sessions %d, after Close %d, session durations %d; want 1, 0, 1", live, after, n)
			}
			if version == mcp.Version20260728 && live != 0 {
				t.Errorf("a stateless client counts as %d live sessions", live)
			}
		})
	}
}

func TestLogHandler(t *testing.T) {
	tm := newTelemetry(t)
	var buf bytes.Buffer
	log := slog.New(rpcotel.LogHandler(slog.NewJSONHandler(&buf, nil))).With("svc", "x")
	ctx, span := tm.tp.Tracer("t").Start(context.Background(), "op")
	log.InfoContext(ctx, "inside")
	span.End()
	log.Info("outside")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var in, out map[string]any
	json.Unmarshal([]byte(lines[0]), &in)
	json.Unmarshal([]byte(lines[1]), &out)
	if in["trace_id"] != span.SpanContext().TraceID().String() || in["span_id"] != span.SpanContext().SpanID().String() || in["svc"] != "x" {
		t.Errorf("record in a span: %v", in)
	}
	if _, ok := out["trace_id"]; ok {
		t.Errorf("record outside a span has a trace id: %v", out)
	}
}
