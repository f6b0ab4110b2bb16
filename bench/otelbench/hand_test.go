package otelbench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	rpcotel "github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestHandRecordsWhatOtelOnRecords checks that impl=hand is a fair floor:
// for one tools/call in each era, its spans (name, kind, attributes, the
// server's parent the client's span through _meta, no link to the ambient
// span, which is that span in process) and its measurements
// (instruments and attribute sets) are otel-on's.
func TestHandRecordsWhatOtelOnRecords(t *testing.T) {
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(version, func(t *testing.T) {
			on := telemetryOf(t, version, func(tp *sdktrace.TracerProvider, mp *sdkmetric.MeterProvider, w3c propagation.TextMapPropagator) (mcpclient.Middleware, runtime.Middleware) {
				in := rpcotel.New(rpcotel.WithTracerProvider(tp), rpcotel.WithMeterProvider(mp), rpcotel.WithPropagator(w3c))
				return in.MCPClient(), in.MCPServer()
			})
			hd := telemetryOf(t, version, func(tp *sdktrace.TracerProvider, mp *sdkmetric.MeterProvider, w3c propagation.TextMapPropagator) (mcpclient.Middleware, runtime.Middleware) {
				h := newHand(tp, mp, w3c, "add")
				return h.Client(), h.Server()
			})
			if !slices.Equal(on, hd) {
				t.Errorf("otel-on records\n\t%q\nhand records\n\t%q", on, hd)
			}
		})
	}
}

// telemetryOf makes one tools/call add with the middleware mw makes, and
// returns what was recorded for it, one line a span or measurement.
func telemetryOf(t *testing.T, version string, mw func(*sdktrace.TracerProvider, *sdkmetric.MeterProvider, propagation.TextMapPropagator) (mcpclient.Middleware, runtime.Middleware)) []string {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	w3c := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	cmw, smw := mw(tp, mp, w3c)
	srv := mcpserver.New(mcp.Implementation{Name: "bench", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{smw}})
	srv.AddTools(mcpserver.Tool{Name: "add", Handler: addTool})
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{ProtocolVersion: version, Middleware: []mcpclient.Middleware{cmw}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rm metricdata.ResourceMetrics
	before := len(rec.Ended())
	ctx, caller := tp.Tracer("test").Start(context.Background(), "caller")
	var out struct{ Sum int }
	if err := c.CallTool(ctx, "add", &addParams{A: 1, B: 2}, &out); err != nil || out.Sum != 3 {
		t.Fatalf("add: %d, %v", out.Sum, err)
	}
	caller.End()
	var lines []string
	spans := rec.Ended()[before:]
	for _, s := range spans {
		if s.Name() == "caller" {
			continue
		}
		parent := "caller"
		for _, p := range spans {
			if p.SpanContext().SpanID() == s.Parent().SpanID() {
				parent = p.SpanKind().String()
			}
		}
		lines = append(lines, fmt.Sprintf("span %q %v parent %s remote %v links %d: %s", s.Name(), s.SpanKind(), parent, s.Parent().IsRemote(), len(s.Links()), attrsOf(s.Attributes(), "jsonrpc.request.id")))
	}
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					if p.Count > 0 {
						lines = append(lines, fmt.Sprintf("histogram %s %v: %s", m.Name, p.Count, attrsOf(p.Attributes.ToSlice(), "")))
					}
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					lines = append(lines, fmt.Sprintf("sum %s %v: %s", m.Name, p.Value, attrsOf(p.Attributes.ToSlice(), "")))
				}
			}
		}
	}
	// The handshake's measurements (cumulative) are not the call's.
	lines = slices.DeleteFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "histogram ") && !strings.Contains(l, "mcp.method.name=tools/call") || strings.Contains(l, "active_sessions")
	})
	slices.Sort(lines)
	return lines
}

// attrsOf writes attrs sorted, the value of key as "*" (a request id).
func attrsOf(attrs []attribute.KeyValue, key attribute.Key) string {
	var s []string
	for _, a := range attrs {
		v := a.Value.String()
		if a.Key == key {
			v = "*"
		}
		s = append(s, string(a.Key)+"="+v)
	}
	slices.Sort(s)
	return fmt.Sprint(s)
}
