package otel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	global "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/rpcgen/rpcgen/ext/otel"

// Attribute keys of the semantic conventions (RPC, JSON-RPC, MCP, GenAI,
// network, error) this package sets.
const (
	keyRPCSystem        = attribute.Key("rpc.system.name")
	keyRPCMethod        = attribute.Key("rpc.method")
	keyRPCMethodOrig    = attribute.Key("rpc.method_original")
	keyRPCStatusCode    = attribute.Key("rpc.status_code")
	keyJSONRPCRequestID = attribute.Key("jsonrpc.request.id")
	keyMCPMethod        = attribute.Key("mcp.method.name")
	keyMCPSessionID     = attribute.Key("mcp.session.id")
	keyMCPVersion       = attribute.Key("mcp.protocol.version")
	keyMCPResourceURI   = attribute.Key("mcp.resource.uri")
	keyGenAIOperation   = attribute.Key("gen_ai.operation.name")
	keyGenAITool        = attribute.Key("gen_ai.tool.name")
	keyGenAIPrompt      = attribute.Key("gen_ai.prompt.name")
	keyNetTransport     = attribute.Key("network.transport")
	keyNetProtoName     = attribute.Key("network.protocol.name")
	keyNetProtoVersion  = attribute.Key("network.protocol.version")
	keyClientAddress    = attribute.Key("client.address")
	keyErrorType        = attribute.Key("error.type")
)

// durationBuckets are the RPC conventions' advised histogram boundaries
// (seconds); mcpBuckets the MCP conventions'.
var (
	durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	mcpBuckets      = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
)

// Option configures New.
type Option func(*config)

type config struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider sets the tracer provider; the default is the global one
// (go.opentelemetry.io/otel.GetTracerProvider) at the time of New.
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithMeterProvider sets the meter provider; the default is the global one.
func WithMeterProvider(mp metric.MeterProvider) Option { return func(c *config) { c.mp = mp } }

// WithPropagator sets the propagator of trace context (and baggage); the
// default is the global one, which should be W3C Trace Context and Baggage:
// propagation.NewCompositeTextMapPropagator(propagation.TraceContext{},
// propagation.Baggage{}).
func WithPropagator(p propagation.TextMapPropagator) Option { return func(c *config) { c.prop = p } }

// Instrumentation makes the middleware that traces and measures calls. One
// serves any number of servers and clients; its methods are safe for
// concurrent use.
type Instrumentation struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	rpcServerDuration, rpcClientDuration metric.Float64Histogram
	mcpServerDuration, mcpClientDuration metric.Float64Histogram
	mcpSessionDuration                   metric.Float64Histogram
	serverActive, clientActive           metric.Int64UpDownCounter
	sessions                             metric.Int64UpDownCounter
}

// New returns an Instrumentation with the providers and propagator the
// options give, else the global ones.
func New(opts ...Option) *Instrumentation {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = global.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = global.GetMeterProvider()
	}
	if c.prop == nil {
		c.prop = global.GetTextMapPropagator()
	}
	m := c.mp.Meter(ScopeName)
	in := &Instrumentation{tracer: c.tp.Tracer(ScopeName), prop: c.prop}
	hist := func(name, desc string, buckets []float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(buckets...))
		if err != nil {
			global.Handle(err)
		}
		return h
	}
	counter := func(name, unit, desc string) metric.Int64UpDownCounter {
		u, err := m.Int64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		if err != nil {
			global.Handle(err)
		}
		return u
	}
	in.rpcServerDuration = hist("rpc.server.call.duration", "Measures the duration of an incoming Remote Procedure Call (RPC).", durationBuckets)
	in.rpcClientDuration = hist("rpc.client.call.duration", "Measures the duration of an outgoing Remote Procedure Call (RPC).", durationBuckets)
	in.mcpServerDuration = hist("mcp.server.operation.duration", "The duration of the MCP request or notification as observed on the receiver from the time it was received until the result or ack is sent.", mcpBuckets)
	in.mcpClientDuration = hist("mcp.client.operation.duration", "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.", mcpBuckets)
	in.mcpSessionDuration = hist("mcp.server.session.duration", "The duration of the MCP session as observed on the MCP server.", mcpBuckets)
	in.serverActive = counter("rpcgen.server.active_requests", "{request}", "Requests (JSON-RPC and MCP) being served.")
	in.clientActive = counter("rpcgen.client.active_requests", "{request}", "Calls (JSON-RPC and MCP) waiting for their response.")
	in.sessions = counter("rpcgen.mcp.server.active_sessions", "{session}", "Live legacy MCP sessions (2024-11-05 to 2025-11-25; 2026-07-28 has none).")
	return in
}

// errorCode returns the JSON-RPC error code of err as the conventions'
// error.type and rpc.status_code write it, a low-cardinality name for a
// failure with no code (a context's end, a lost connection), and its message.
func errorCode(err error) (errorType, statusCode, message string) {
	var re *runtime.Error
	switch {
	case errors.As(err, &re) && re != nil:
		c := strconv.FormatInt(re.Code, 10)
		return c, c, re.Message
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout", "", err.Error()
	case errors.Is(err, context.Canceled):
		return "cancelled", "", err.Error()
	case errors.Is(err, runtime.ErrNotSent):
		return "not_sent", "", err.Error()
	case errors.Is(err, runtime.ErrConnectionLost):
		return "connection_lost", "", err.Error()
	}
	return "_OTHER", "", err.Error()
}

// serverErrorCode is errorCode for a handler's error, which a server answers
// with -32000 when it is not a *runtime.Error.
func serverErrorCode(err error) (errorType, statusCode, message string) {
	var re *runtime.Error
	if errors.As(err, &re) && re != nil {
		return errorCode(re)
	}
	c := strconv.FormatInt(runtime.CodeServerError, 10)
	return c, c, err.Error()
}

// fail records a failure on span and returns the attributes a duration
// metric gets for it.
func fail(span trace.Span, errorType, statusCode, message string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{keyErrorType.String(errorType)}
	if statusCode != "" {
		attrs = append(attrs, keyRPCStatusCode.String(statusCode))
	}
	span.SetAttributes(attrs...)
	span.SetStatus(codes.Error, message)
	return attrs
}

func seconds(start time.Time) float64 { return time.Since(start).Seconds() }

// idString is a request id as jsonrpc.request.id writes it: a string id
// without its quotes.
func idString(id runtime.ID) string {
	raw := id.String()
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return s
		}
	}
	return raw
}
