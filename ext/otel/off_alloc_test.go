//go:build !race

// The race detector's sync.Pool drops items at random, so allocation counts
// of the runtime's chains vary by one or two under it: this comparison runs
// without it (go test ./...); TestOffMiddlewareAllocatesNothing, which runs
// under it too, measures the middleware alone.

package otel_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	rpcotel "github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// passClient and passServer are middleware that do nothing: what any
// configured middleware costs the runtime's chains.
func passClient(next runtime.Invoker) runtime.Invoker {
	return func(ctx context.Context, call *runtime.ClientCall) error { return next(ctx, call) }
}

func passServer(next runtime.Handler) runtime.Handler {
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		return next.ServeRPC(ctx, req)
	})
}

func passMCPClient(next mcpclient.Handler) mcpclient.Handler {
	return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) { return next(ctx, req) }
}

// procCaller serves each call with a Processor in the calling goroutine.
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

func (c *procCaller) Notify(context.Context, string, any) error { return nil }

type addArgs struct{ A, B int }

var addHandler = runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	var p addArgs
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, err
	}
	return runtime.EncodeResult(p.A + p.B)
})

// jsonrpcAllocs is the allocations of one in-process JSON-RPC call with
// client and server middleware (none when client is nil).
func jsonrpcAllocs(t *testing.T, client runtime.ClientMiddleware, server runtime.Middleware) float64 {
	opts := runtime.Options{Handler: addHandler}
	pc := &procCaller{}
	var caller runtime.Caller = pc
	if client != nil {
		opts.Middleware = []runtime.Middleware{server}
		caller = runtime.WrapCaller(pc, client)
	}
	pc.p = runtime.NewProcessor(opts)
	return testing.AllocsPerRun(200, func() {
		var sum int
		if err := caller.Call(context.Background(), "add", addArgs{A: 1, B: 2}, &sum); err != nil || sum != 3 {
			t.Fatalf("add: %d, %v", sum, err)
		}
	})
}

// mcpAllocs is the allocations of one in-process tools/call of the given
// revision with client and server middleware (none when client is nil).
func mcpAllocs(t *testing.T, version string, client mcpclient.Middleware, server runtime.Middleware) float64 {
	sopts := &mcpserver.Options{}
	copts := mcpclient.Options{ProtocolVersion: version}
	if client != nil {
		sopts.Middleware = []runtime.Middleware{server}
		copts.Middleware = []mcpclient.Middleware{client}
	}
	srv := mcpserver.New(mcp.Implementation{Name: "t", Version: "1"}, sopts)
	srv.AddTools(mcpserver.Tool{Name: "add", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var p addArgs
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]int{"sum": p.A + p.B})
	}})
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), copts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return testing.AllocsPerRun(200, func() {
		var out struct{ Sum int }
		if err := c.CallTool(context.Background(), "add", addArgs{A: 1, B: 2}, &out); err != nil || out.Sum != 3 {
			t.Fatalf("add: %d, %v", out.Sum, err)
		}
	})
}

// TestOffAddsNoAllocations: with tracing off, ext/otel's middleware on both
// sides of an in-process call allocates nothing more than middleware that
// does nothing, and a call through either nothing more than one with no
// middleware at all (WrapCaller reuses its ClientCall, mcpclient its Request,
// and the Request's numeric id needs no memory).
func TestOffAddsNoAllocations(t *testing.T) {
	off := offInstrumentation()
	none, pass, offAllocs := jsonrpcAllocs(t, nil, nil), jsonrpcAllocs(t, passClient, passServer), jsonrpcAllocs(t, off.Client(), off.Server())
	t.Logf("JSON-RPC: %v allocations without middleware, %v with pass-through middleware, %v with otel off", none, pass, offAllocs)
	if offAllocs != none || pass != none {
		t.Errorf("JSON-RPC: %v allocations with otel off, %v with pass-through middleware, %v without middleware", offAllocs, pass, none)
	}
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		none, pass, offAllocs := mcpAllocs(t, version, nil, nil), mcpAllocs(t, version, passMCPClient, passServer), mcpAllocs(t, version, off.MCPClient(), off.MCPServer())
		t.Logf("MCP %s: %v allocations without middleware, %v with pass-through middleware, %v with otel off", version, none, pass, offAllocs)
		if offAllocs != none || pass != none {
			t.Errorf("MCP %s: %v allocations with otel off, %v with pass-through middleware, %v without middleware", version, offAllocs, pass, none)
		}
	}
}

// dropSpans is a span processor that keeps nothing.
type dropSpans struct{}

func (dropSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (dropSpans) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (dropSpans) Shutdown(context.Context) error                  { return nil }
func (dropSpans) ForceFlush(context.Context) error                { return nil }

// TestOnAllocations pins what tracing on costs an in-process call in
// allocations over no middleware, the SDK's and ext/otel's together, with
// every span recorded (and dropped) and every metric: a change that adds one
// fails here, and one that removes some lowers the numbers. The SDK alone
// takes 19 of an MCP call's (bench/otelbench's sdk-floor).
func TestOnAllocations(t *testing.T) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(dropSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())
	w3c := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	on := rpcotel.New(rpcotel.WithTracerProvider(tp), rpcotel.WithMeterProvider(mp), rpcotel.WithPropagator(w3c))
	if on.Off() {
		t.Fatal("the SDK's providers were taken for no-op ones")
	}
	for _, tc := range []struct {
		name      string
		none, got float64
		want      float64
	}{
		{"JSON-RPC", jsonrpcAllocs(t, nil, nil), jsonrpcAllocs(t, on.Client(), on.Server()), onJSONRPCAllocs},
		{"MCP " + mcp.Version20251125, mcpAllocs(t, mcp.Version20251125, nil, nil), mcpAllocs(t, mcp.Version20251125, on.MCPClient(), on.MCPServer()), onLegacyAllocs},
		{"MCP " + mcp.Version20260728, mcpAllocs(t, mcp.Version20260728, nil, nil), mcpAllocs(t, mcp.Version20260728, on.MCPClient(), on.MCPServer()), onModernAllocs},
	} {
		t.Logf("%s: %v allocations without middleware, %v with tracing on", tc.name, tc.none, tc.got)
		if tc.got-tc.none != tc.want {
			t.Errorf("%s: tracing on adds %v allocations, want %v", tc.name, tc.got-tc.none, tc.want)
		}
	}
}

// What tracing on adds to a call, the SDK's allocations included.
const (
	onJSONRPCAllocs = 13
	onLegacyAllocs  = 18
	onModernAllocs  = 18
)
