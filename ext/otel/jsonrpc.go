package otel

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime"
)

var systemJSONRPC = keyRPCSystem.String("jsonrpc")

// Server returns middleware for a JSON-RPC server (runtime.Options.Middleware,
// rpchttp.Options.Middleware, rpcnet.Server's Options): a SERVER span per
// request and notification, named by its method ("jsonrpc" for a method the
// handler does not know, with rpc.method _OTHER and rpc.method_original), with
// rpc.system.name, rpc.method, jsonrpc.request.id, network.transport and, on
// failure, error.type and rpc.status_code (the error code), the span status
// holding the message; the rpc.server.call.duration histogram and the
// rpcgen.server.active_requests count. Its parent is the trace context the
// request came with: HTTP headers through HTTPHandler.
func (in *Instrumentation) Server() runtime.Middleware {
	return func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			start := time.Now()
			attrs := make([]attribute.KeyValue, 0, 10)
			attrs = append(attrs, systemJSONRPC, keyRPCMethod.String(req.Method))
			if !req.IsNotification() {
				attrs = append(attrs, keyJSONRPCRequestID.String(idString(req.ID)))
			}
			attrs = transportAttrs(ctx, runtime.TransportFromContext(ctx), attrs)
			ctx, span := in.tracer.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
			in.serverActive.Add(ctx, 1, metric.WithAttributes(systemJSONRPC))
			defer in.serverActive.Add(ctx, -1, metric.WithAttributes(systemJSONRPC))
			res, err := next.ServeRPC(ctx, req)
			mattrs := []attribute.KeyValue{systemJSONRPC, keyRPCMethod.String(req.Method)}
			if err != nil && !errors.Is(err, runtime.ErrNoResponse) {
				et, sc, msg := serverErrorCode(err)
				if sc == "-32601" {
					// Not a method of the handler: the conventions keep
					// such names out of rpc.method and span names.
					span.SetName("jsonrpc")
					span.SetAttributes(keyRPCMethod.String("_OTHER"), keyRPCMethodOrig.String(req.Method))
					mattrs[1] = keyRPCMethod.String("_OTHER")
				}
				mattrs = append(mattrs, fail(span, et, sc, msg)...)
			}
			in.rpcServerDuration.Record(ctx, seconds(start), metric.WithAttributes(mattrs...))
			span.End()
			return res, err
		})
	}
}

// Client returns client middleware for a JSON-RPC client (runtime.WrapCaller):
// a CLIENT span per call (a batch: one per element; a stream: until it ends),
// attributed as Server's, whose trace context goes with the call in HTTP
// headers over rpchttp (runtime.WithCallHeaders); the rpc.client.call.duration
// histogram and the rpcgen.client.active_requests count. A retry inside the
// chain below it is part of the one span.
func (in *Instrumentation) Client() runtime.ClientMiddleware {
	return func(next runtime.Invoker) runtime.Invoker {
		return func(ctx context.Context, call *runtime.ClientCall) error {
			if call.Kind == runtime.KindBatch {
				return in.clientBatch(ctx, next, call)
			}
			start := time.Now()
			ctx, span := in.startClient(ctx, call.Method, call.Transport)
			in.clientActive.Add(ctx, 1, metric.WithAttributes(systemJSONRPC))
			err := next(in.headers(ctx), call)
			if err == nil && call.Kind == runtime.KindStream && call.Stream != nil {
				call.Stream = &tracedStream{ItemStream: call.Stream, in: in, ctx: ctx, span: span, method: call.Method, start: start}
				return nil
			}
			in.endClient(ctx, span, call.Method, start, err)
			return err
		}
	}
}

func (in *Instrumentation) startClient(ctx context.Context, method, transport string) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{systemJSONRPC, keyRPCMethod.String(method)}
	if transport != "" {
		attrs = append(attrs, keyNetTransport.String(transport))
	}
	return in.tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

func (in *Instrumentation) endClient(ctx context.Context, span trace.Span, method string, start time.Time, err error) {
	in.clientActive.Add(ctx, -1, metric.WithAttributes(systemJSONRPC))
	mattrs := []attribute.KeyValue{systemJSONRPC, keyRPCMethod.String(method)}
	if err != nil && !errors.Is(err, io.EOF) {
		et, sc, msg := errorCode(err)
		mattrs = append(mattrs, fail(span, et, sc, msg)...)
	}
	in.rpcClientDuration.Record(ctx, seconds(start), metric.WithAttributes(mattrs...))
	span.End()
}

// clientBatch traces each element of a batch; the headers carry the first
// element's trace context (one HTTP request carries them all).
func (in *Instrumentation) clientBatch(ctx context.Context, next runtime.Invoker, call *runtime.ClientCall) error {
	start := time.Now()
	spans := make([]trace.Span, len(call.Batch))
	var hctx context.Context
	for i, bc := range call.Batch {
		var sctx context.Context
		sctx, spans[i] = in.startClient(ctx, bc.Method, call.Transport)
		in.clientActive.Add(ctx, 1, metric.WithAttributes(systemJSONRPC))
		if hctx == nil {
			hctx = sctx
		}
	}
	if hctx == nil {
		return next(ctx, call)
	}
	err := next(runtime.WithCallHeaders(ctx, runtime.CallHeadersFromContext(in.headers(hctx))), call)
	for i, bc := range call.Batch {
		e := err
		if e == nil {
			e = bc.Err
		}
		in.endClient(ctx, spans[i], bc.Method, start, e)
	}
	return err
}

// tracedStream ends a stream call's span when the stream ends.
type tracedStream struct {
	runtime.ItemStream
	in     *Instrumentation
	ctx    context.Context
	span   trace.Span
	method string
	start  time.Time
	once   sync.Once
}

func (s *tracedStream) end(err error) {
	s.once.Do(func() { s.in.endClient(s.ctx, s.span, s.method, s.start, err) })
}

func (s *tracedStream) Next() (json.RawMessage, error) {
	raw, err := s.ItemStream.Next()
	if err != nil {
		s.end(err)
	}
	return raw, err
}

func (s *tracedStream) Close() error {
	err := s.ItemStream.Close()
	s.end(nil)
	return err
}
