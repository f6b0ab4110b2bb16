package otel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	global "go.opentelemetry.io/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
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

func offInstrumentation() *rpcotel.Instrumentation {
	return rpcotel.New(rpcotel.WithTracerProvider(tracenoop.NewTracerProvider()),
		rpcotel.WithMeterProvider(metricnoop.NewMeterProvider()), rpcotel.WithPropagator(w3c))
}

func TestOffDetectsNoopProviders(t *testing.T) {
	sdkTP := sdktrace.NewTracerProvider()
	sdkMP := sdkmetric.NewMeterProvider()
	defer sdkTP.Shutdown(context.Background())
	defer sdkMP.Shutdown(context.Background())
	for _, c := range []struct {
		name string
		opts []rpcotel.Option
		off  bool
	}{
		{"noop", []rpcotel.Option{rpcotel.WithTracerProvider(tracenoop.NewTracerProvider()), rpcotel.WithMeterProvider(metricnoop.NewMeterProvider())}, true},
		//lint:ignore SA1019 the deprecated no-op provider is still one
		{"deprecated noop tracer", []rpcotel.Option{rpcotel.WithTracerProvider(trace.NewNoopTracerProvider()), rpcotel.WithMeterProvider(metricnoop.NewMeterProvider())}, true},
		{"provider of noop tracers", []rpcotel.Option{rpcotel.WithTracerProvider(noopTracers{}), rpcotel.WithMeterProvider(metricnoop.NewMeterProvider())}, true},
		{"sdk tracer", []rpcotel.Option{rpcotel.WithTracerProvider(sdkTP), rpcotel.WithMeterProvider(metricnoop.NewMeterProvider())}, false},
		{"sdk meter", []rpcotel.Option{rpcotel.WithTracerProvider(tracenoop.NewTracerProvider()), rpcotel.WithMeterProvider(sdkMP)}, false},
		// The global providers delegate to the ones set later: never off.
		{"global", []rpcotel.Option{rpcotel.WithTracerProvider(global.GetTracerProvider()), rpcotel.WithMeterProvider(global.GetMeterProvider())}, false},
	} {
		if got := rpcotel.New(c.opts...).Off(); got != c.off {
			t.Errorf("%s: Off() = %v, want %v", c.name, got, c.off)
		}
	}
}

// noopTracers is a tracer provider of a program's own whose tracers are the
// no-op ones.
type noopTracers struct{ tracenoop.TracerProvider }

func (noopTracers) Tracer(string, ...trace.TracerOption) trace.Tracer { return tracenoop.Tracer{} }

const (
	incomingTraceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	incomingTraceID     = "0af7651916cd43dd8448eb211c80319c"
	incomingSpanID      = "b7ad6b7169203331"
)

// TestOffPassesTraceContextOn: with tracing off, as with the no-op tracer
// itself, the trace context a request brings in params._meta is in the
// handler's context, and the handler's own MCP and JSON-RPC calls send it on
// (in _meta and in HTTP headers); a request without sends none.
func TestOffPassesTraceContextOn(t *testing.T) {
	off := offInstrumentation()
	// The service the handler calls: it records the _meta it gets.
	var downMeta atomic.Value
	down := mcpserver.New(mcp.Implementation{Name: "down", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{
		func(next runtime.Handler) runtime.Handler {
			return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
				if req.Method == "tools/call" {
					var p struct {
						Meta map[string]any `json:"_meta"`
					}
					json.Unmarshal(req.Params, &p)
					downMeta.Store(p.Meta)
				}
				return next.ServeRPC(ctx, req)
			})
		}}})
	down.AddTools(mcpserver.Tool{Name: "leaf", Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return json.Marshal(map[string]int{})
	}})
	downClient, err := mcpclient.ConnectTransport(context.Background(), down.InProcess(), mcpclient.Options{Middleware: []mcpclient.Middleware{off.MCPClient()}})
	if err != nil {
		t.Fatal(err)
	}
	defer downClient.Close()
	// A JSON-RPC call of the handler's: the headers it would send.
	var headers atomic.Value
	rpc := runtime.WrapCaller(callerFunc(func(ctx context.Context) { headers.Store(runtime.CallHeadersFromContext(ctx)) }), off.Client())

	var handlerSC atomic.Value
	up := mcpserver.New(mcp.Implementation{Name: "up", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{off.MCPServer()}})
	up.AddTools(mcpserver.Tool{Name: "relay", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		handlerSC.Store(trace.SpanContextFromContext(ctx))
		if err := downClient.CallTool(ctx, "leaf", map[string]int{}, nil); err != nil {
			return nil, err
		}
		if err := rpc.Call(ctx, "ping", nil, nil); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]int{})
	}})
	// The upstream client sends _meta itself (a client nobody here wrote).
	upClient, err := mcpclient.ConnectTransport(context.Background(), up.InProcess(), mcpclient.Options{Middleware: []mcpclient.Middleware{
		func(next mcpclient.Handler) mcpclient.Handler {
			return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
				if req.Method == "tools/call" && ctx.Value(withTrace{}) != nil {
					req.SetMeta("traceparent", incomingTraceparent)
				}
				return next(ctx, req)
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	defer upClient.Close()

	if err := upClient.CallTool(context.WithValue(context.Background(), withTrace{}, true), "relay", map[string]int{}, nil); err != nil {
		t.Fatal(err)
	}
	sc := handlerSC.Load().(trace.SpanContext)
	if sc.TraceID().String() != incomingTraceID || sc.SpanID().String() != incomingSpanID || !sc.IsRemote() {
		t.Errorf("the handler's span context is %v, want the remote %s-%s", sc, incomingTraceID, incomingSpanID)
	}
	if m, _ := downMeta.Load().(map[string]any); m["traceparent"] != incomingTraceparent {
		t.Errorf("the outgoing MCP call's _meta is %v, want traceparent %s", m, incomingTraceparent)
	}
	if h, _ := headers.Load().(map[string][]string); http.Header(h).Get("traceparent") != incomingTraceparent {
		t.Errorf("the outgoing JSON-RPC call's headers are %v, want traceparent %s", h, incomingTraceparent)
	}

	// Without trace context: nothing in the handler's context, nothing sent.
	if err := upClient.CallTool(context.Background(), "relay", map[string]int{}, nil); err != nil {
		t.Fatal(err)
	}
	if sc := handlerSC.Load().(trace.SpanContext); sc.IsValid() {
		t.Errorf("the handler's span context is %v, want none", sc)
	}
	if m, _ := downMeta.Load().(map[string]any); m["traceparent"] != nil {
		t.Errorf("the outgoing MCP call's _meta is %v, want no traceparent", m)
	}
	if h, _ := headers.Load().(map[string][]string); len(h) != 0 {
		t.Errorf("the outgoing JSON-RPC call's headers are %v, want none", h)
	}
}

type withTrace struct{}

// callerFunc is a Caller that runs f with each call's context.
type callerFunc func(ctx context.Context)

func (f callerFunc) Call(ctx context.Context, _ string, _, _ any) error { f(ctx); return nil }
func (f callerFunc) Notify(ctx context.Context, _ string, _ any) error  { f(ctx); return nil }

// TestOffHTTPHandler: with tracing off, HTTPHandler puts the headers' trace
// context in the request's context, and passes a request without any on as
// it came.
func TestOffHTTPHandler(t *testing.T) {
	off := offInstrumentation()
	var got *http.Request
	h := off.HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
	r := httptest.NewRequest("POST", "/", nil)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got != r {
		t.Error("a request without trace context was not passed on as it came")
	}
	r = httptest.NewRequest("POST", "/", nil)
	r.Header.Set("traceparent", incomingTraceparent)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if sc := trace.SpanContextFromContext(got.Context()); sc.TraceID().String() != incomingTraceID || sc.SpanID().String() != incomingSpanID {
		t.Errorf("the handler's span context is %v, want %s", sc, incomingTraceparent)
	}
}

// TestOffMiddlewareAllocatesNothing: with tracing off, each of ext/otel's
// middleware allocates nothing for a call without trace context, and neither
// reads nor changes the request.
func TestOffMiddlewareAllocatesNothing(t *testing.T) {
	off := offInstrumentation()
	ctx := context.Background()
	result := json.RawMessage(`{"content":[]}`)

	for _, srv := range []struct {
		name string
		mw   runtime.Middleware
	}{{"Server", off.Server()}, {"MCPServer", off.MCPServer()}} {
		var seen context.Context
		h := srv.mw(runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			seen = ctx
			return result, nil
		}))
		req := &runtime.Request{Method: "tools/call", ID: runtime.Int64ID(7), Params: json.RawMessage(`{"name":"add","arguments":{"a":1},"_meta":{"progressToken":1}}`)}
		if n := testing.AllocsPerRun(100, func() {
			if res, err := h.ServeRPC(ctx, req); err != nil || string(res) != string(result) {
				t.Fatalf("%s: %s, %v", srv.name, res, err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per request, want 0", srv.name, n)
		}
		if seen != ctx {
			t.Errorf("%s: the handler's context is not the request's", srv.name)
		}
	}

	invoke := off.Client()(func(ctx context.Context, call *runtime.ClientCall) error {
		if runtime.CallHeadersFromContext(ctx) != nil {
			t.Error("Client: headers for a call without trace context")
		}
		return nil
	})
	call := &runtime.ClientCall{Kind: runtime.KindCall, Method: "add"}
	if n := testing.AllocsPerRun(100, func() {
		if err := invoke(ctx, call); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Client: %v allocations per call, want 0", n)
	}

	send := off.MCPClient()(func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
		if runtime.CallHeadersFromContext(ctx) != nil {
			t.Error("MCPClient: headers for a request without trace context")
		}
		return result, nil
	})
	req := &mcpclient.Request{Method: "tools/call", ID: runtime.Int64ID(7), Params: json.RawMessage(`{"name":"add"}`)}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := send(ctx, req); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("MCPClient: %v allocations per request, want 0", n)
	}
}
