package interop

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	rpcotel "github.com/rpcgen/rpcgen/ext/otel"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestMCPGoTraceContext: mcp-go's client, with its own tracing hooks
// (client.WithTracer, client.WithMetaPropagator: mcp-go puts the trace
// context into params._meta itself, per SEP-414), calls an rpcgen server
// traced by ext/otel over Streamable HTTP with no trace headers; the rpcgen
// server span is a child in the caller's trace. mcp-go's OpenTelemetry adapter
// module (github.com/mark3labs/mcp-go/otel) is not published on the module
// proxy, so the two small adapters below bridge OpenTelemetry to its
// interfaces. mcp-go injects the context of the ctx passed to CallTool (the
// caller's span), not of the client span it starts itself, so the rpcgen
// span's parent is the caller's span, and mcp-go's span is its sibling.
func TestMCPGoTraceContext(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		name := version
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			defer tp.Shutdown(context.Background())
			w3c := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
			inst := rpcotel.New(rpcotel.WithTracerProvider(tp), rpcotel.WithPropagator(w3c))

			srv := mcpserver.New(mcp.Implementation{Name: "traced", Version: "1"}, &mcpserver.Options{Middleware: []runtime.Middleware{inst.MCPServer()}})
			srv.AddTools(mcpserver.Tool{Name: "hello", Handler: func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
				return json.RawMessage(`{"hello":"world"}`), nil
			}})
			h := mcphttp.NewHandler(srv, nil)
			t.Cleanup(func() { h.Close() })
			hs := httptest.NewServer(inst.HTTPHandler(h))
			t.Cleanup(hs.Close) // after the client's Close (cleanups run last first)

			tr, err := transport.NewStreamableHTTP(hs.URL)
			if err != nil {
				t.Fatal(err)
			}
			opts := []client.ClientOption{client.WithTracer(otelTracer{tp.Tracer("mcp-go")}), client.WithMetaPropagator(metaPropagator{w3c})}
			if version != "" {
				opts = append(opts, client.WithProtocolVersion(version))
			}
			s := startMCPGo(t, tr, opts...)
			ctx, agent := tp.Tracer("agent").Start(context.Background(), "agent")
			res, err := s.c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "hello"}})
			agent.End()
			if err != nil || res.IsError {
				t.Fatalf("call: %+v, %v", res, err)
			}
			var server, mcpgoSpan sdktrace.ReadOnlySpan
			for _, sp := range rec.Ended() {
				switch {
				case sp.Name() == "tools/call hello" && sp.SpanKind() == trace.SpanKindServer:
					server = sp
				case sp.Name() == "mcp.tools/call" && sp.SpanKind() == trace.SpanKindClient:
					mcpgoSpan = sp
				}
			}
			if server == nil || mcpgoSpan == nil {
				t.Fatalf("spans: rpcgen server %v, mcp-go client %v", server, mcpgoSpan)
			}
			if server.SpanContext().TraceID() != agent.SpanContext().TraceID() || server.Parent().SpanID() != agent.SpanContext().SpanID() || !server.Parent().IsRemote() {
				t.Fatalf("rpcgen's server span (trace %s, parent %s) is not the remote child of the caller's span (trace %s, span %s)",
					server.SpanContext().TraceID(), server.Parent().SpanID(), agent.SpanContext().TraceID(), agent.SpanContext().SpanID())
			}
			if mcpgoSpan.SpanContext().TraceID() != server.SpanContext().TraceID() {
				t.Errorf("mcp-go's client span is in another trace")
			}
		})
	}
}

// otelTracer and otelSpan adapt an OpenTelemetry tracer to mcp-go's
// tracing.Tracer.
type otelTracer struct{ t trace.Tracer }

func (o otelTracer) Start(ctx context.Context, name string, kind tracing.SpanKind, attrs ...tracing.Attribute) (context.Context, tracing.Span) {
	k := trace.SpanKindInternal
	switch kind {
	case tracing.SpanKindClient:
		k = trace.SpanKindClient
	case tracing.SpanKindServer:
		k = trace.SpanKindServer
	}
	ctx, s := o.t.Start(ctx, name, trace.WithSpanKind(k))
	o.setAttrs(s, attrs)
	return ctx, otelSpan{s}
}

func (otelTracer) setAttrs(s trace.Span, attrs []tracing.Attribute) {
	otelSpan{s}.SetAttributes(attrs...)
}

type otelSpan struct{ s trace.Span }

func (o otelSpan) SetAttributes(attrs ...tracing.Attribute) {
	for _, a := range attrs {
		o.s.SetAttributes(attributeString(a.Key, a.Value))
	}
}
func (o otelSpan) RecordError(err error) { o.s.RecordError(err) }
func (o otelSpan) SetStatus(code tracing.StatusCode, description string) {
	if code == tracing.StatusError {
		o.s.SetStatus(codes.Error, description)
	}
}
func (o otelSpan) End() { o.s.End() }

// metaPropagator adapts an OpenTelemetry propagator to mcp-go's
// tracing.MetaPropagator: the trace context goes into _meta's fields.
type metaPropagator struct{ p propagation.TextMapPropagator }

func (m metaPropagator) InjectMeta(ctx context.Context, meta *mcpgo.Meta) *mcpgo.Meta {
	c := propagation.MapCarrier{}
	m.p.Inject(ctx, c)
	if len(c) == 0 {
		return meta
	}
	if meta == nil {
		meta = &mcpgo.Meta{}
	}
	if meta.AdditionalFields == nil {
		meta.AdditionalFields = map[string]any{}
	}
	for k, v := range c {
		meta.AdditionalFields[k] = v
	}
	return meta
}

func (m metaPropagator) ExtractMeta(ctx context.Context, meta *mcpgo.Meta) context.Context {
	if meta == nil {
		return ctx
	}
	c := propagation.MapCarrier{}
	for k, v := range meta.AdditionalFields {
		if s, ok := v.(string); ok {
			c[k] = s
		}
	}
	return m.p.Extract(ctx, c)
}

func attributeString(k, v string) attribute.KeyValue { return attribute.String(k, v) }
