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
	if in.off {
		return offServer
	}
	return func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			start := time.Now()
			ctx, span := in.tracer.Start(ctx, req.Method, in.starts.startOpts(attrKey{a: "s", b: req.Method}, serverKind, rpcStartAttrs)...)
			if span.IsRecording() {
				ab := getAttrs()
				attrs := *ab
				if !req.IsNotification() {
					attrs = append(attrs, keyJSONRPCRequestID.String(idString(req.ID)))
				}
				attrs = transportAttrs(ctx, runtime.TransportFromContext(ctx), attrs)
				span.SetAttributes(attrs...)
				putAttrs(ab, attrs)
			}
			in.serverActive.Add(ctx, 1, activeJSONRPC...)
			res, err := next.ServeRPC(ctx, req)
			in.serverActive.Add(ctx, -1, activeJSONRPC...)
			method, et, sc := req.Method, "", ""
			if err != nil && !errors.Is(err, runtime.ErrNoResponse) {
				var msg string
				et, sc, msg = serverErrorCode(err)
				if sc == "-32601" {
					// Not a method of the handler: the conventions keep
					// such names out of rpc.method and span names.
					span.SetName("jsonrpc")
					span.SetAttributes(keyRPCMethod.String("_OTHER"), keyRPCMethodOrig.String(req.Method))
					method = "_OTHER"
				}
				fail(span, et, sc, msg)
			}
			in.rpcServerDuration.Record(ctx, seconds(start), in.rpcAttrs(method, et, sc)...)
			span.End()
			return res, err
		})
	}
}

var (
	serverKind = trace.WithSpanKind(trace.SpanKindServer)
	clientKind = trace.WithSpanKind(trace.SpanKindClient)
)

// rpcAttrs are the options of a JSON-RPC duration's measurement.
func (in *Instrumentation) rpcAttrs(method, errorType, statusCode string) []metric.RecordOption {
	return in.attrSets.recordOpts(attrKey{a: "jsonrpc", b: method, c: errorType, d: statusCode}, rpcMetricAttrs)
}

func rpcMetricAttrs(k attrKey) []attribute.KeyValue {
	return appendFailure([]attribute.KeyValue{systemJSONRPC, keyRPCMethod.String(k.b)}, k.c, k.d)
}

// rpcStartAttrs are a JSON-RPC span's attributes at its start.
func rpcStartAttrs(k attrKey) []attribute.KeyValue {
	return []attribute.KeyValue{systemJSONRPC, keyRPCMethod.String(k.b)}
}

// Client returns client middleware for a JSON-RPC client (runtime.WrapCaller):
// a CLIENT span per call (a batch: one per element; a stream: until it ends),
// attributed as Server's, whose trace context goes with the call in HTTP
// headers over rpchttp (runtime.WithCallHeaderFunc); the
// rpc.client.call.duration histogram and the rpcgen.client.active_requests
// count. A retry inside the chain below it is part of the one span.
func (in *Instrumentation) Client() runtime.ClientMiddleware {
	if in.off {
		return in.offClient
	}
	return func(next runtime.Invoker) runtime.Invoker {
		return func(ctx context.Context, call *runtime.ClientCall) error {
			if call.Kind == runtime.KindBatch {
				return in.clientBatch(ctx, next, call)
			}
			start := time.Now()
			ctx, span := in.startClient(ctx, call.Method, call.Transport)
			in.clientActive.Add(ctx, 1, activeJSONRPC...)
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
	ctx, span := in.tracer.Start(ctx, method, in.starts.startOpts(attrKey{a: "c", b: method}, clientKind, rpcStartAttrs)...)
	if transport != "" && span.IsRecording() {
		span.SetAttributes(keyNetTransport.String(transport))
	}
	return ctx, span
}

func (in *Instrumentation) endClient(ctx context.Context, span trace.Span, method string, start time.Time, err error) {
	in.clientActive.Add(ctx, -1, activeJSONRPC...)
	var et, sc string
	if err != nil && !errors.Is(err, io.EOF) {
		var msg string
		et, sc, msg = errorCode(err)
		fail(span, et, sc, msg)
	}
	in.rpcClientDuration.Record(ctx, seconds(start), in.rpcAttrs(method, et, sc)...)
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
		in.clientActive.Add(ctx, 1, activeJSONRPC...)
		if hctx == nil {
			hctx = sctx
		}
	}
	if hctx == nil {
		return next(ctx, call)
	}
	// The headers carry the first element's trace context (one HTTP request
	// carries them all).
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
