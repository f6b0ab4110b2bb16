package otel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// MCPServer returns method middleware for an MCP server
// (mcp.ServerOptions.Middleware): a SERVER span per request and notification,
// named "{mcp.method.name} {target}" (the tool or prompt) or
// "{mcp.method.name}", with mcp.method.name, jsonrpc.request.id,
// mcp.session.id, mcp.protocol.version, gen_ai.tool.name and
// gen_ai.operation.name execute_tool (tools/call), gen_ai.prompt.name,
// mcp.resource.uri, network.transport (pipe over stdio; tcp and
// network.protocol.* through HTTPHandler) and, on failure, error.type (the
// JSON-RPC code, or tool_error for an isError result) and rpc.status_code; the
// progress and log notifications sent for the request as span events. Its
// parent is the trace context in params._meta (traceparent, tracestate,
// baggage; SEP-414), linking the HTTP request's when that differs, else the
// HTTP request's. Metrics: mcp.server.operation.duration,
// mcp.server.session.duration, rpcgen.server.active_requests and
// rpcgen.mcp.server.active_sessions.
func (in *Instrumentation) MCPServer() runtime.Middleware {
	return func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			start := time.Now()
			p := scanParams(req.Params)
			ss := mcp.SessionFromContext(ctx)
			parent := ctx
			var opts []trace.SpanStartOption
			if p.carrier != nil {
				ambient := trace.SpanContextFromContext(ctx)
				parent = in.prop.Extract(ctx, p.carrier)
				if remote := trace.SpanContextFromContext(parent); ambient.IsValid() && !ambient.Equal(remote) {
					opts = append(opts, trace.WithLinks(trace.Link{SpanContext: ambient}))
				}
			}
			version := p.version
			if version == "" && ss != nil {
				version = ss.ProtocolVersion()
			}
			attrs := mcpAttrs(req.Method, req.ID, p.target, version, 12)
			if ss != nil && ss.ID() != "" {
				attrs = append(attrs, keyMCPSessionID.String(ss.ID()))
			}
			attrs = transportAttrs(ctx, runtime.TransportFromContext(ctx), attrs)
			opts = append(opts, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
			ctx, span := in.tracer.Start(parent, spanName(req.Method, p.target), opts...)
			ctx = mcp.ObserveNotifications(ctx, func(method string, params json.RawMessage) {
				span.AddEvent(method, trace.WithAttributes(eventAttrs(method, params)...))
			})
			in.serverActive.Add(ctx, 1, mcpSystem)
			res, err := next.ServeRPC(ctx, req)
			in.serverActive.Add(ctx, -1, mcpSystem)
			if req.Method == "initialize" && err == nil && ss != nil && ss.ProtocolVersion() != "" {
				version = ss.ProtocolVersion()
				span.SetAttributes(keyMCPVersion.String(version))
				in.sessionStarted(ss, version)
			}
			mattrs := metricAttrs(req.Method, p.target, version)
			mattrs = append(mattrs, transportAttrs(ctx, runtime.TransportFromContext(ctx), nil)...)
			mattrs = append(mattrs, in.outcome(span, req.Method, res, err, serverErrorCode)...)
			in.mcpServerDuration.Record(ctx, seconds(start), metric.WithAttributes(mattrs...))
			span.End()
			return res, err
		})
	}
}

var mcpSystem = metric.WithAttributes(attribute.String("rpcgen.protocol", "mcp"))

// sessionStarted counts a legacy session from its initialize to its end.
func (in *Instrumentation) sessionStarted(ss *mcp.Session, version string) {
	start := time.Now()
	ctx := context.Background()
	attrs := metric.WithAttributes(keyMCPVersion.String(version))
	in.sessions.Add(ctx, 1, attrs)
	ss.OnClose(func() {
		in.sessions.Add(ctx, -1, attrs)
		in.mcpSessionDuration.Record(ctx, seconds(start), attrs)
	})
}

// MCPClient returns client middleware for an MCP client
// (mcp.ClientOptions.Middleware): a CLIENT span per request and notification,
// named and attributed as MCPServer's, whose trace context goes with the
// request in params._meta (every transport) and in HTTP headers (mcphttp); the
// progress notifications of the request as span events; the
// mcp.client.operation.duration histogram and rpcgen.client.active_requests.
func (in *Instrumentation) MCPClient() mcp.ClientMiddleware {
	return func(next mcp.ClientHandler) mcp.ClientHandler {
		return func(ctx context.Context, req *mcp.ClientRequest) (json.RawMessage, error) {
			start := time.Now()
			target := req.Target()
			attrs := mcpAttrs(req.Method, req.ID, target, req.ProtocolVersion, 10)
			if req.SessionID != "" {
				attrs = append(attrs, keyMCPSessionID.String(req.SessionID))
			}
			ctx, span := in.tracer.Start(ctx, spanName(req.Method, target), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
			in.prop.Inject(ctx, metaCarrier{req})
			prev := req.OnNotification
			req.OnNotification = func(method string, params json.RawMessage) {
				span.AddEvent(method, trace.WithAttributes(eventAttrs(method, params)...))
				if prev != nil {
					prev(method, params)
				}
			}
			in.clientActive.Add(ctx, 1, mcpSystem)
			res, err := next(in.headers(ctx), req)
			in.clientActive.Add(ctx, -1, mcpSystem)
			mattrs := append(metricAttrs(req.Method, target, req.ProtocolVersion), in.outcome(span, req.Method, res, err, errorCode)...)
			in.mcpClientDuration.Record(ctx, seconds(start), metric.WithAttributes(mattrs...))
			span.End()
			return res, err
		}
	}
}

// outcome records a request's failure on span, if it failed, and returns the
// metric attributes that say so.
func (in *Instrumentation) outcome(span trace.Span, method string, res json.RawMessage, err error, code func(error) (string, string, string)) []attribute.KeyValue {
	switch {
	case err != nil && !errors.Is(err, runtime.ErrNoResponse):
		et, sc, msg := code(err)
		return fail(span, et, sc, msg)
	case method == "tools/call" && mcp.ResultIsError(res):
		return fail(span, "tool_error", "", toolErrorText(res))
	}
	return nil
}

// toolErrorText is the first text block of an isError result, the message
// the conventions want as the status description.
func toolErrorText(res json.RawMessage) string {
	var r struct {
		Content []struct {
			Type, Text string
		}
	}
	if json.Unmarshal(res, &r) == nil {
		for _, c := range r.Content {
			if c.Type == "text" {
				return c.Text
			}
		}
	}
	return "tool error"
}

func spanName(method, target string) string {
	if target != "" && (method == "tools/call" || method == "prompts/get") {
		return method + " " + target
	}
	return method
}

// mcpAttrs are the span attributes of a request known before it runs.
func mcpAttrs(method string, id runtime.ID, target, version string, n int) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, n)
	attrs = append(attrs, keyMCPMethod.String(method))
	if !id.IsZero() {
		attrs = append(attrs, keyJSONRPCRequestID.String(idString(id)))
	}
	if version != "" {
		attrs = append(attrs, keyMCPVersion.String(version))
	}
	return append(attrs, targetAttrs(method, target)...)
}

func targetAttrs(method, target string) []attribute.KeyValue {
	if target == "" {
		return nil
	}
	switch method {
	case "tools/call":
		return []attribute.KeyValue{keyGenAITool.String(target), keyGenAIOperation.String("execute_tool")}
	case "prompts/get":
		return []attribute.KeyValue{keyGenAIPrompt.String(target)}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return []attribute.KeyValue{keyMCPResourceURI.String(target)}
	}
	return nil
}

// metricAttrs are a request's duration attributes: the span's, less the
// high-cardinality ones (request id, session id, resource URI).
func metricAttrs(method, target, version string) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, keyMCPMethod.String(method))
	if version != "" {
		attrs = append(attrs, keyMCPVersion.String(version))
	}
	if method == "tools/call" || method == "prompts/get" {
		attrs = append(attrs, targetAttrs(method, target)...)
	}
	return attrs
}

// eventAttrs are the attributes of a progress or log notification's event.
func eventAttrs(method string, params json.RawMessage) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	o, ok := runtime.ScanObject(params)
	for ok {
		key, val, more := o.Next()
		if !more {
			break
		}
		switch k := string(key); {
		case method == "notifications/progress" && (k == "progress" || k == "total"):
			if f, err := strconv.ParseFloat(string(val), 64); err == nil {
				attrs = append(attrs, attribute.Float64("mcp.progress."+k, f))
			}
		case k == "message" || k == "level" || k == "logger":
			var s string
			if json.Unmarshal(val, &s) == nil {
				attrs = append(attrs, attribute.String(eventKey(method)+k, s))
			}
		case k == "data":
			if len(val) > 1024 {
				val = val[:1024]
			}
			attrs = append(attrs, attribute.String("mcp.log.data", string(val)))
		}
	}
	return attrs
}

func eventKey(method string) string {
	if method == "notifications/progress" {
		return "mcp.progress."
	}
	return "mcp.log."
}

// params are the members of a request's params the server middleware reads.
type params struct {
	target  string                 // name (tools/call, prompts/get) or uri
	version string                 // _meta's io.modelcontextprotocol/protocolVersion
	carrier propagation.MapCarrier // _meta's traceparent, tracestate, baggage; nil when none
}

func scanParams(raw json.RawMessage) params {
	var p params
	o, ok := runtime.ScanObject(raw)
	for ok {
		key, val, more := o.Next()
		if !more {
			break
		}
		switch string(key) {
		case "name", "uri":
			json.Unmarshal(val, &p.target)
		case "_meta":
			m, ok := runtime.ScanObject(val)
			for ok {
				k, v, more := m.Next()
				if !more {
					break
				}
				switch string(k) {
				case "traceparent", "tracestate", "baggage":
					var s string
					if json.Unmarshal(v, &s) == nil {
						if p.carrier == nil {
							p.carrier = propagation.MapCarrier{}
						}
						p.carrier[string(k)] = s
					}
				case mcp.MetaProtocolVersion:
					json.Unmarshal(v, &p.version)
				}
			}
		}
	}
	return p
}

// metaCarrier injects trace context into a request's params._meta.
type metaCarrier struct{ req *mcp.ClientRequest }

func (c metaCarrier) Get(string) string     { return "" }
func (c metaCarrier) Set(key, value string) { c.req.SetMeta(key, value) }
func (c metaCarrier) Keys() []string        { return nil }
