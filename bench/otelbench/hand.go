package otelbench

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// hand is a hand-written minimal MCP instrumentation (impl=hand): the
// OpenTelemetry SDK called directly from rpcgen's middleware hooks, with the
// spans, trace propagation, attributes and measurements otel-on makes for a
// tools/call, and nothing ext/otel does besides (no other methods, no
// notification events, no HTTP, no caches but a table of the tools it was
// built for). What it costs over otel-off is what any instrumentation of a
// call that crosses a process must pay: the SDK's work, the request id's
// text, the trace context written into params._meta and read back from the
// request's bytes (copied: a propagator may keep what it reads), the tool
// name read from params on both sides, the server's look for an ambient
// span to link, a clock read a side for the duration.
// otel-on's time over hand's is ext/otel's own share.
type hand struct {
	tracer                         trace.Tracer
	prop                           propagation.TextMapPropagator
	clientDuration, serverDuration metric.Float64Histogram
	clientActive, serverActive     metric.Int64UpDownCounter
	tools                          map[string]*handTool
}

// handTool is what the spans and measurements of one tool's calls share,
// built once: any instrumentation can keep it.
type handTool struct {
	name                     string // the tool's
	span                     string // the spans' name
	clientStart, serverStart []trace.SpanStartOption
	record                   map[string][]metric.RecordOption // by protocol version
}

var (
	handActive = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("rpcgen.protocol", "mcp")))}
	handMethod = attribute.String("mcp.method.name", "tools/call")
)

// newHand instruments calls of tools, with the instruments otel-on records
// into (its names and bucket boundaries).
func newHand(tp trace.TracerProvider, mp metric.MeterProvider, prop propagation.TextMapPropagator, tools ...string) *hand {
	m := mp.Meter("hand")
	buckets := metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
	h := &hand{tracer: tp.Tracer("hand"), prop: prop, tools: map[string]*handTool{}}
	h.serverDuration, _ = m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"), buckets)
	h.clientDuration, _ = m.Float64Histogram("mcp.client.operation.duration", metric.WithUnit("s"), buckets)
	h.serverActive, _ = m.Int64UpDownCounter("rpcgen.server.active_requests", metric.WithUnit("{request}"))
	h.clientActive, _ = m.Int64UpDownCounter("rpcgen.client.active_requests", metric.WithUnit("{request}"))
	for _, name := range tools {
		t := &handTool{name: name, span: "tools/call " + name, record: map[string][]metric.RecordOption{}}
		t.clientStart = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(handMethod)}
		t.serverStart = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(handMethod)}
		for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
			t.record[v] = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(handMethod, attribute.String("mcp.protocol.version", v),
				attribute.String("gen_ai.tool.name", name), attribute.String("gen_ai.operation.name", "execute_tool")))}
		}
		h.tools[name] = t
	}
	return h
}

// tool is the tool params names, nil when it is none of h's.
func (h *hand) tool(params []byte) (t *handTool, meta []byte) {
	o, ok := runtime.ScanObject(params)
	for ok {
		k, v, more := o.Next()
		if !more {
			break
		}
		switch string(k) {
		case "name":
			if len(v) >= 2 && v[0] == '"' {
				t = h.tools[string(v[1:len(v)-1])]
			}
		case "_meta":
			meta = v
		}
	}
	return t, meta
}

// Client is the client's middleware.
func (h *hand) Client() mcpclient.Middleware {
	return func(next mcpclient.Handler) mcpclient.Handler {
		return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
			if req.Method != "tools/call" {
				return next(ctx, req)
			}
			t, _ := h.tool(req.Params)
			if t == nil {
				return next(ctx, req)
			}
			start := time.Now()
			ctx, span := h.tracer.Start(ctx, t.span, t.clientStart...)
			setAttrs(span, req.ID, req.ProtocolVersion, t.name)
			h.prop.Inject(ctx, handMeta{req})
			h.clientActive.Add(ctx, 1, handActive...)
			res, err := next(ctx, req)
			h.clientActive.Add(ctx, -1, handActive...)
			handOutcome(span, res, err)
			h.clientDuration.Record(ctx, time.Since(start).Seconds(), t.record[req.ProtocolVersion]...)
			span.End()
			return res, err
		}
	}
}

// setAttrs sets a call's attributes but mcp.method.name (set at the start,
// for samplers), through a pooled array (SetAttributes copies them; a
// literal would be allocated each call, as the slice escapes).
func setAttrs(span trace.Span, id runtime.ID, version, tool string) {
	a := handAttrs.Get().(*[4]attribute.KeyValue)
	a[0] = attribute.String("jsonrpc.request.id", id.String())
	a[1] = attribute.String("mcp.protocol.version", version)
	a[2] = attribute.String("gen_ai.tool.name", tool)
	a[3] = attribute.String("gen_ai.operation.name", "execute_tool")
	span.SetAttributes(a[:]...)
	*a = [4]attribute.KeyValue{}
	handAttrs.Put(a)
}

var handAttrs = sync.Pool{New: func() any { return new([4]attribute.KeyValue) }}

// Server is the server's middleware.
func (h *hand) Server() runtime.Middleware {
	return func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			if req.Method != "tools/call" {
				return next.ServeRPC(ctx, req)
			}
			t, meta := h.tool(req.Params)
			if t == nil {
				return next.ServeRPC(ctx, req)
			}
			start := time.Now()
			c := handCarriers.Get().(*handCarrier)
			version := c.scan(meta)
			if ss := mcpserver.SessionFromContext(ctx); version == "" && ss != nil {
				version = ss.ProtocolVersion()
			}
			parent := h.prop.Extract(ctx, c)
			*c = handCarrier{}
			handCarriers.Put(c)
			// The conventions' server span links the ambient context when
			// it is not _meta's (in process, the client's span is both).
			opts := t.serverStart
			if ambient, remote := trace.SpanContextFromContext(ctx), trace.SpanContextFromContext(parent); ambient.IsValid() &&
				(ambient.TraceID() != remote.TraceID() || ambient.SpanID() != remote.SpanID()) {
				opts = append([]trace.SpanStartOption{trace.WithLinks(trace.Link{SpanContext: ambient})}, opts...)
			}
			ctx, span := h.tracer.Start(parent, t.span, opts...)
			setAttrs(span, req.ID, version, t.name)
			h.serverActive.Add(ctx, 1, handActive...)
			res, err := next.ServeRPC(ctx, req)
			h.serverActive.Add(ctx, -1, handActive...)
			handOutcome(span, res, err)
			h.serverDuration.Record(ctx, time.Since(start).Seconds(), t.record[version]...)
			span.End()
			return res, err
		})
	}
}

// handOutcome marks a failed call's span (never on the benchmark's path).
func handOutcome(span trace.Span, res json.RawMessage, err error) {
	switch {
	case err != nil:
		span.SetAttributes(attribute.String("error.type", "_OTHER"))
		span.SetStatus(codes.Error, err.Error())
	case bytes.IndexByte(res, 'E') >= 0 && mcpclient.ResultIsError(res):
		span.SetAttributes(attribute.String("error.type", "tool_error"))
		span.SetStatus(codes.Error, "tool error")
	}
}

// handMeta injects into a request's params._meta.
type handMeta struct{ req *mcpclient.Request }

func (c handMeta) Get(string) string     { return "" }
func (c handMeta) Set(key, value string) { c.req.SetMeta(key, value) }
func (c handMeta) Keys() []string        { return nil }

// handCarrier is the trace context read from a request's _meta, in a pooled
// carrier (Extract takes an interface: a carrier on the stack would escape).
type handCarrier struct{ traceparent, tracestate, baggage string }

var handCarriers = sync.Pool{New: func() any { return new(handCarrier) }}

// scan reads _meta's trace context members into c, copied out of the
// request, and returns its protocol version.
func (c *handCarrier) scan(meta []byte) (version string) {
	o, ok := runtime.ScanObject(meta)
	for ok {
		k, v, more := o.Next()
		if !more {
			break
		}
		switch string(k) {
		case "traceparent":
			c.traceparent = handString(v)
		case "tracestate":
			c.tracestate = handString(v)
		case "baggage":
			c.baggage = handString(v)
		case mcp.MetaProtocolVersion:
			switch string(v) { // the versions it knows, without a copy
			case `"` + mcp.Version20251125 + `"`:
				version = mcp.Version20251125
			case `"` + mcp.Version20260728 + `"`:
				version = mcp.Version20260728
			}
		}
	}
	return version
}

// handString is the JSON string v holds, copied.
func handString(v []byte) string {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	json.Unmarshal(v, &s)
	return s
}

func (c *handCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.traceparent
	case "tracestate":
		return c.tracestate
	case "baggage":
		return c.baggage
	}
	return ""
}

func (c *handCarrier) Set(string, string) {}
func (c *handCarrier) Keys() []string     { return []string{"traceparent", "tracestate", "baggage"} }
