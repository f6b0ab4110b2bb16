package otel

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// Tracing off: when both providers are the OpenTelemetry API's no-op ones
// (their tracers and meters are the no-op types), there is no span to record
// and no measurement to make, so the middleware does only what the no-op
// tracer would leave behind: trace context passes through. A request that
// brings trace context (params._meta, HTTP headers) has it in the handler's
// context, where a no-op span would have carried the same span context, and
// an outgoing call whose context has a span context or baggage sends it on;
// a request and a call with none cost no more than no middleware does.

// noopTracerType is the type of the deprecated trace.NewNoopTracerProvider's
// tracers, which keep a remote parent's span context as the noop package's do.
//
//lint:ignore SA1019 a program may still pass the deprecated no-op provider
var noopTracerType = reflect.TypeOf(trace.NewNoopTracerProvider().Tracer(""))

// isOff reports whether tracer and meter are no-op ones.
func isOff(tracer trace.Tracer, meter metric.Meter) bool {
	_, noopMeter := meter.(metricnoop.Meter)
	if !noopMeter {
		return false
	}
	if _, ok := tracer.(tracenoop.Tracer); ok {
		return true
	}
	return reflect.TypeOf(tracer) == noopTracerType
}

// Off reports whether the Instrumentation traces and measures nothing (its
// providers are the no-op ones), so its middleware only passes trace context
// on.
func (in *Instrumentation) Off() bool { return in.off }

// offServer is Server with tracing off: the trace context of HTTP headers is
// already in the context (HTTPHandler), and JSON-RPC carries it nowhere else.
func offServer(next runtime.Handler) runtime.Handler { return next }

// offClient is Client with tracing off: the context's trace context, if any,
// goes in HTTP headers.
func (in *Instrumentation) offClient(next runtime.Invoker) runtime.Invoker {
	return func(ctx context.Context, call *runtime.ClientCall) error {
		return next(in.headers(ctx), call)
	}
}

// offMCPServer is MCPServer with tracing off: the trace context of
// params._meta, when there is some, goes in the handler's context.
func (in *Instrumentation) offMCPServer(next runtime.Handler) runtime.Handler {
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if c, ok := scanTraceMeta(req.Params); ok {
			ctx = extract(ctx, in.prop, &c)
		}
		return next.ServeRPC(ctx, req)
	})
}

// offMCPClient is MCPClient with tracing off: the context's trace context, if
// any, goes in params._meta and in HTTP headers; a request without is not
// touched.
func (in *Instrumentation) offMCPClient(next mcpclient.Handler) mcpclient.Handler {
	return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
		if hasTraceContext(ctx) {
			in.prop.Inject(ctx, metaCarrier{req})
			if overHTTP(&req.Server) {
				ctx = runtime.WithCallHeaderFunc(ctx, in.headerFunc)
			}
		}
		return next(ctx, req)
	}
}

// offHTTPHandler is HTTPHandler with tracing off: it takes the headers'
// trace context, and leaves a request without any as it is.
func (in *Instrumentation) offHTTPHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ctx := in.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header)); ctx != r.Context() {
			r = r.WithContext(ctx)
		}
		h.ServeHTTP(w, r)
	})
}

var metaKey = []byte(`"_meta"`)

// scanTraceMeta returns the trace context members of params._meta, reading
// them without decoding params; false when there are none.
func scanTraceMeta(raw json.RawMessage) (traceCarrier, bool) {
	var c traceCarrier
	if !bytes.Contains(raw, metaKey) {
		return c, false // a search of the bytes is quicker than a scan
	}
	o, ok := runtime.ScanObject(raw)
	for ok {
		key, val, more := o.Next()
		if !more {
			break
		}
		if string(key) == "_meta" {
			c.scanMeta(val, nil)
		}
	}
	return c, c.found
}
