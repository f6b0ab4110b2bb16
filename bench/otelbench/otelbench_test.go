package otelbench

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"syscall"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	rpcotel "github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

type addParams struct {
	A int `json:"a"`
	B int `json:"b"`
}

var addHandler = runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	var p addParams
	if err := runtime.DecodeParams(req.Params, &p, &p.A, &p.B); err != nil {
		return nil, err
	}
	return runtime.EncodeResult(p.A + p.B)
})

func addTool(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var p addParams
	if err := json.Unmarshal(args, &p); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]int{"sum": p.A + p.B})
}

// procCaller is a Caller that serves each call with a Processor in the
// calling goroutine: a call in process, with no transport.
type procCaller struct {
	p  *runtime.Processor
	id atomic.Int64
}

func (c *procCaller) Call(ctx context.Context, method string, params, result any) error {
	msg, err := runtime.AppendRequest(nil, c.id.Add(1), method, params)
	if err != nil {
		return err
	}
	r, err := runtime.ParseResponse(c.p.Process(ctx, msg, nil))
	if err != nil {
		return err
	}
	if err := r.Err(); err != nil {
		return err
	}
	return r.Decode(method, result)
}

func (c *procCaller) Notify(ctx context.Context, method string, params any) error {
	msg, err := runtime.AppendRequest(nil, 0, method, params)
	if err != nil {
		return err
	}
	c.p.Process(ctx, msg, nil)
	return nil
}

// dropSpans is a span processor that keeps nothing; it remembers the last
// server span's parent, so the benchmark can check that the trace joined.
type dropSpans struct{ lastParent atomic.Value }

func (d *dropSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (d *dropSpans) OnEnd(s sdktrace.ReadOnlySpan) {
	if s.SpanKind() == trace.SpanKindServer {
		d.lastParent.Store(s.Parent().SpanID())
	}
}
func (d *dropSpans) Shutdown(context.Context) error   { return nil }
func (d *dropSpans) ForceFlush(context.Context) error { return nil }

// loop runs op in b.Loop and reports, besides ns/op, cpu-ns/op: the CPU time
// (user and system, of every thread, the garbage collector's included) the
// process spent per operation. On a machine shared with other work ns/op, a
// wall time, also counts the time the process waited for a core; cpu-ns/op
// does not.
func loop(b *testing.B, op func()) {
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used, in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// impls are the three setups each workload runs under; inst is nil for
// rpcgen (no middleware).
func impls(b *testing.B) []struct {
	name string
	inst *rpcotel.Instrumentation
	drop *dropSpans
} {
	w3c := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	drop := &dropSpans{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(drop))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { tp.Shutdown(context.Background()); mp.Shutdown(context.Background()) })
	return []struct {
		name string
		inst *rpcotel.Instrumentation
		drop *dropSpans
	}{
		{"rpcgen", nil, nil},
		{"otel-off", rpcotel.New(rpcotel.WithTracerProvider(tracenoop.NewTracerProvider()), rpcotel.WithMeterProvider(metricnoop.NewMeterProvider()), rpcotel.WithPropagator(w3c)), nil},
		{"otel-on", rpcotel.New(rpcotel.WithTracerProvider(tp), rpcotel.WithMeterProvider(mp), rpcotel.WithPropagator(w3c)), drop},
	}
}

// tracedCtx is the caller's context: with tracing on, inside a span of the
// caller's, as an instrumented program calls.
func tracedCtx(b *testing.B, inst *rpcotel.Instrumentation, drop *dropSpans) (context.Context, func()) {
	if drop == nil {
		return context.Background(), func() {}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(drop))
	ctx, span := tp.Tracer("bench").Start(context.Background(), "caller")
	return ctx, func() { span.End(); tp.Shutdown(context.Background()) }
}

func BenchmarkTracing(b *testing.B) {
	for _, im := range impls(b) {
		b.Run("jsonrpc/inprocess/impl="+im.name, func(b *testing.B) {
			opts := runtime.Options{Handler: addHandler}
			var caller runtime.Caller
			pc := &procCaller{}
			caller = pc
			if im.inst != nil {
				opts.Middleware = []runtime.Middleware{im.inst.Server()}
				caller = runtime.WrapCaller(pc, im.inst.Client())
			}
			pc.p = runtime.NewProcessor(opts)
			ctx, done := tracedCtx(b, im.inst, im.drop)
			defer done()
			i := 0
			loop(b, func() {
				i++
				var sum int
				if err := caller.Call(ctx, "arith.add", &addParams{A: i, B: 1000}, &sum); err != nil || sum != i+1000 {
					b.Fatalf("add: %d, %v", sum, err)
				}
			})
		})
	}
	b.Run("sdk-floor/impl=otel-on", benchmarkSDKFloor)
	for _, era := range []struct{ name, version string }{{"legacy", mcp.Version20251125}, {"modern", mcp.Version20260728}} {
		for _, im := range impls(b) {
			b.Run("mcp/inprocess/"+era.name+"/impl="+im.name, func(b *testing.B) {
				if im.inst == nil {
					benchmarkMCP(b, era.version, nil, nil, nil)
					return
				}
				benchmarkMCP(b, era.version, im.inst.MCPClient(), im.inst.MCPServer(), im.drop)
			})
		}
		b.Run("mcp/inprocess/"+era.name+"/impl=hand", func(b *testing.B) {
			w3c := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
			drop := &dropSpans{}
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(drop))
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			defer tp.Shutdown(context.Background())
			defer mp.Shutdown(context.Background())
			h := newHand(tp, mp, w3c, "add")
			benchmarkMCP(b, era.version, h.Client(), h.Server(), drop)
		})
	}
}

// benchmarkMCP calls the tool add in process, through the client and server
// middleware given (none when nil); drop is the tracer provider's processor
// when spans are recorded.
func benchmarkMCP(b *testing.B, version string, cmw mcpclient.Middleware, smw runtime.Middleware, drop *dropSpans) {
	sopts := &mcpserver.Options{}
	copts := mcpclient.Options{ProtocolVersion: version}
	if cmw != nil {
		sopts.Middleware = []runtime.Middleware{smw}
		copts.Middleware = []mcpclient.Middleware{cmw}
	}
	srv := mcpserver.New(mcp.Implementation{Name: "bench", Version: "1"}, sopts)
	srv.AddTools(mcpserver.Tool{Name: "add", Handler: addTool})
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), copts)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx, done := tracedCtx(b, nil, drop)
	defer done()
	i := 0
	loop(b, func() {
		i++
		var out struct{ Sum int }
		if err := c.CallTool(ctx, "add", &addParams{A: i, B: 1000}, &out); err != nil || out.Sum != i+1000 {
			b.Fatalf("add: %d, %v", out.Sum, err)
		}
	})
	if drop != nil {
		if p, _ := drop.lastParent.Load().(trace.SpanID); !p.IsValid() {
			b.Fatal("the server span has no parent: the trace did not join")
		}
	}
}

// benchmarkSDKFloor is what OpenTelemetry's SDK itself costs for what
// otel-on records per MCP call, with no rpcgen code: a client span and its
// child server span (started from the client's context, injected into and
// extracted from a carrier by the same propagator, as across processes), each
// with the attributes otel-on gives it (mcp.method.name at the start;
// jsonrpc.request.id, mcp.protocol.version, gen_ai.tool.name and
// gen_ai.operation.name after), ended; and on each side, in that side's
// instruments (created as ext/otel creates them: the same names and bucket
// boundaries), a duration measurement with the attributes otel-on gives it
// (mcp.method.name, mcp.protocol.version, gen_ai.tool.name,
// gen_ai.operation.name) and two in-flight changes, with prebuilt attribute
// sets, as ext/otel caches them.
func benchmarkSDKFloor(b *testing.B) {
	w3c := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	drop := &dropSpans{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(drop))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())
	tr := tp.Tracer("floor")
	m := mp.Meter("floor")
	buckets := metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
	serverDuration, _ := m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"), buckets)
	clientDuration, _ := m.Float64Histogram("mcp.client.operation.duration", metric.WithUnit("s"), buckets)
	serverActive, _ := m.Int64UpDownCounter("rpcgen.server.active_requests", metric.WithUnit("{request}"))
	clientActive, _ := m.Int64UpDownCounter("rpcgen.client.active_requests", metric.WithUnit("{request}"))
	method := attribute.String("mcp.method.name", "tools/call")
	clientStart := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(method)}
	serverStart := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(method)}
	record := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(method, attribute.String("mcp.protocol.version", "2026-07-28"),
		attribute.String("gen_ai.tool.name", "add"), attribute.String("gen_ai.operation.name", "execute_tool")))}
	add := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("rpcgen.protocol", "mcp")))}
	ctx, done := tracedCtx(b, nil, &dropSpans{})
	defer done()
	loop(b, func() {
		cctx, client := tr.Start(ctx, "tools/call add", clientStart...)
		client.SetAttributes(attribute.String("jsonrpc.request.id", "1"), attribute.String("mcp.protocol.version", "2026-07-28"),
			attribute.String("gen_ai.tool.name", "add"), attribute.String("gen_ai.operation.name", "execute_tool"))
		clientActive.Add(cctx, 1, add...)
		var carrier floorCarrier
		w3c.Inject(cctx, &carrier)
		sctx, server := tr.Start(w3c.Extract(context.Background(), &carrier), "tools/call add", serverStart...)
		server.SetAttributes(attribute.String("jsonrpc.request.id", "1"), attribute.String("mcp.protocol.version", "2026-07-28"),
			attribute.String("gen_ai.tool.name", "add"), attribute.String("gen_ai.operation.name", "execute_tool"))
		serverActive.Add(sctx, 1, add...)
		serverActive.Add(sctx, -1, add...)
		serverDuration.Record(sctx, 0.001, record...)
		server.End()
		clientActive.Add(cctx, -1, add...)
		clientDuration.Record(cctx, 0.001, record...)
		client.End()
	})
	if p, _ := drop.lastParent.Load().(trace.SpanID); !p.IsValid() {
		b.Fatal("the server span has no parent: the trace did not join")
	}
}

// floorCarrier holds the trace context members in fields, as ext/otel's
// carriers do, rather than in a map.
type floorCarrier struct{ traceparent, tracestate, baggage string }

func (c *floorCarrier) Get(key string) string {
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

func (c *floorCarrier) Set(key, value string) {
	switch key {
	case "traceparent":
		c.traceparent = value
	case "tracestate":
		c.tracestate = value
	case "baggage":
		c.baggage = value
	}
}

func (c *floorCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }
