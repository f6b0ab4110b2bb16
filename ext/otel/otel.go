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
	keyServerAddress    = attribute.Key("server.address")
	keyServerPort       = attribute.Key("server.port")
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
	mcpSessionDuration                   metric.Float64Histogram // the server's
	mcpClientSessionDuration             metric.Float64Histogram
	serverActive, clientActive           metric.Int64UpDownCounter
	sessions                             metric.Int64UpDownCounter

	off        bool                   // both providers are no-op ones (Off)
	headerFunc runtime.CallHeaderFunc // injects trace context into a request's headers
	attrSets   attrCache              // the metric attributes of each kind of request
	starts     attrCache              // the span start options of each kind of request
	// What each kind of MCP request's spans and measurements share, on the
	// server and on the client: one lookup a call.
	serverKinds, clientKinds cache[mcpKey, *mcpKind]
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
	in.off = isOff(in.tracer, m)
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
	in.mcpClientSessionDuration = hist("mcp.client.session.duration", "The duration of the MCP session as observed on the MCP client.", mcpBuckets)
	in.serverActive = counter("rpcgen.server.active_requests", "{request}", "Requests (JSON-RPC and MCP) being served.")
	in.clientActive = counter("rpcgen.client.active_requests", "{request}", "Calls (JSON-RPC and MCP) waiting for their response.")
	in.sessions = counter("rpcgen.mcp.server.active_sessions", "{session}", "Live legacy MCP sessions (2024-11-05 to 2025-11-25; 2026-07-28 has none).")
	in.headerFunc = func(ctx context.Context, set func(key, value string)) {
		in.prop.Inject(ctx, setCarrier(set))
	}
	return in
}

// setCarrier injects into a runtime.CallHeaderFunc's set.
type setCarrier func(key, value string)

func (f setCarrier) Get(string) string     { return "" }
func (f setCarrier) Set(key, value string) { f(key, value) }
func (f setCarrier) Keys() []string        { return nil }

// Precomputed options of the in-flight counters: a slice passed as is, so
// the variadic call allocates nothing.
var (
	activeJSONRPC = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(keyRPCSystem.String("jsonrpc")))}
	activeMCP     = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("rpcgen.protocol", "mcp")))}
)

// attrKey names one combination of a duration metric's attributes, or of a
// span's start options.
type attrKey struct {
	a, b, c, d, e, f string
	g, h             string // an MCP client's server address and protocol
	n                int    // its server port
}

// attrCache keeps what was built for each key seen (the options of a
// measurement or of a span start), so a call builds no attribute set and no
// option (cache's bounds apply).
type attrCache struct{ cache[attrKey, any] }

func (k *attrKey) len() int {
	return len(k.a) + len(k.b) + len(k.c) + len(k.d) + len(k.e) + len(k.f) + len(k.g) + len(k.h)
}

// recordOpts returns the cached options of a measurement with the attributes
// build makes.
func (c *attrCache) recordOpts(k attrKey, build func(attrKey) []attribute.KeyValue) []metric.RecordOption {
	if v, ok := c.load(k); ok {
		return v.([]metric.RecordOption)
	}
	opts := []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(build(k)...))}
	c.store(k, k.len(), opts)
	return opts
}

// startOpts returns the cached options of a span start of kind with attrs.
func (c *attrCache) startOpts(k attrKey, kind trace.SpanStartOption, attrs func(attrKey) []attribute.KeyValue) []trace.SpanStartOption {
	if v, ok := c.load(k); ok {
		return v.([]trace.SpanStartOption)
	}
	opts := []trace.SpanStartOption{kind, trace.WithAttributes(attrs(k)...)}
	c.store(k, k.len(), opts)
	return opts
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

// fail records a failure on span.
func fail(span trace.Span, errorType, statusCode, message string) {
	if statusCode != "" {
		span.SetAttributes(keyErrorType.String(errorType), keyRPCStatusCode.String(statusCode))
	} else {
		span.SetAttributes(keyErrorType.String(errorType))
	}
	span.SetStatus(codes.Error, message)
}

// appendFailure appends the error attributes of a duration metric.
func appendFailure(attrs []attribute.KeyValue, errorType, statusCode string) []attribute.KeyValue {
	if errorType != "" {
		attrs = append(attrs, keyErrorType.String(errorType))
	}
	if statusCode != "" {
		attrs = append(attrs, keyRPCStatusCode.String(statusCode))
	}
	return attrs
}

// unquote returns the string the raw JSON string v holds, without decoding
// when it has no escapes.
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			err := json.Unmarshal(v, &s)
			return s, err == nil
		}
	}
	return string(inner), true
}

func seconds(start time.Time) float64 { return time.Since(start).Seconds() }

// spanTimes is what the SDK's spans tell of their start and end
// (sdktrace.ReadOnlySpan): a call's duration is its span's, read rather
// than timed again.
type spanTimes interface {
	StartTime() time.Time
	EndTime() time.Time
}

// startTime is the time a call whose span is span starts: the zero time when
// the span keeps its own (endSpan reads it), else now.
func startTime(span trace.Span) time.Time {
	if _, ok := span.(spanTimes); ok {
		return time.Time{}
	}
	return time.Now()
}

// endSpan ends span and returns the call's duration in seconds: the span's,
// when it keeps its times, else the time since start.
func endSpan(span trace.Span, start time.Time) float64 {
	span.End()
	if t, ok := span.(spanTimes); ok && start.IsZero() {
		if s, e := t.StartTime(), t.EndTime(); !e.IsZero() {
			return e.Sub(s).Seconds()
		}
		return 0
	}
	return seconds(start)
}

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
