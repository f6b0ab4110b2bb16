package otel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// MCPServer returns method middleware for an MCP server
// (mcpserver.Options.Middleware): a SERVER span per request and notification,
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
// HTTP request's. Metrics: mcp.server.operation.duration (without the tool or
// prompt name of a request answered with an error, as an unknown one is, so
// made-up names make no series), mcp.server.session.duration,
// rpcgen.server.active_requests and rpcgen.mcp.server.active_sessions.
func (in *Instrumentation) MCPServer() runtime.Middleware {
	if in.off {
		return in.offMCPServer
	}
	return func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			var p params
			p.scan(req.Params)
			ss := mcpserver.SessionFromContext(ctx)
			parent := ctx
			var link []trace.SpanStartOption
			if p.carrier.found {
				ambient := trace.SpanContextFromContext(ctx)
				parent = extract(ctx, in.prop, &p.carrier)
				if remote := trace.SpanContextFromContext(parent); ambient.IsValid() && (ambient.TraceID() != remote.TraceID() || ambient.SpanID() != remote.SpanID()) {
					link = []trace.SpanStartOption{trace.WithLinks(trace.Link{SpanContext: ambient})}
				}
			}
			version := p.version
			if version == "" && ss != nil {
				version = ss.ProtocolVersion()
			}
			hi, _ := ctx.Value(httpInfoKey{}).(*httpInfo)
			transport := "tcp"
			if hi == nil {
				transport = runtime.TransportFromContext(ctx)
			}
			k := mcpKey{method: req.Method, target: callTarget(req.Method, p.target), version: version, transport: transport}
			kind, cached := in.mcpKind(&in.serverKinds, &k, "s", serverKind)
			opts := kind.start
			if link != nil {
				opts = append(link, opts...)
			}
			ctx, span := in.tracer.Start(parent, kind.name, opts...)
			start := startTime(span)
			if span.IsRecording() {
				ab := getAttrs()
				attrs := mcpAttrs(*ab, req.ID, req.Method, p.target, version)
				if ss != nil && ss.ID() != "" {
					attrs = append(attrs, keyMCPSessionID.String(ss.ID()))
				}
				attrs = httpAttrs(hi, transport, attrs)
				span.SetAttributes(attrs...)
				putAttrs(ab, attrs)
				ctx = &observedCtx{Context: ctx, span: span}
			}
			in.serverActive.Add(ctx, 1, activeMCP...)
			res, err := next.ServeRPC(ctx, req)
			in.serverActive.Add(ctx, -1, activeMCP...)
			if req.Method == "initialize" && err == nil && ss != nil && ss.ProtocolVersion() != "" {
				version = ss.ProtocolVersion()
				span.SetAttributes(keyMCPVersion.String(version))
				in.sessionStarted(ss, version)
			}
			et, sc := outcome(span, req.Method, res, err, serverErrorCode)
			var record []metric.RecordOption
			if et == "" && version == k.version {
				record = in.answered(&in.serverKinds, &k, kind, cached)
			} else {
				metricTarget := p.target
				if err != nil {
					// An unknown tool or prompt answers with an error: a name a
					// peer made up must not become a series of the histogram
					// (the SDK keeps 2000 before it overflows). The span has it.
					metricTarget = ""
				}
				record = in.mcpMetricAttrs(req.Method, metricTarget, version, transport, et, sc, nil)
			}
			in.mcpServerDuration.Record(ctx, endSpan(span, start), record...)
			return res, err
		})
	}
}

// observedCtx is the context a traced request's handler runs in: the span's
// own, and the observer of the notifications sent for the request, which
// become the span's events (mcpserver.ObserverKey): one allocation, where
// mcpserver.ObserveNotifications with a closure over the span takes two.
type observedCtx struct {
	context.Context
	span trace.Span
}

func (c *observedCtx) Value(key any) any {
	if _, ok := key.(mcpserver.ObserverKey); ok {
		return c
	}
	return c.Context.Value(key)
}

func (c *observedCtx) ObserveNotification(method string, params json.RawMessage) {
	c.span.AddEvent(method, trace.WithAttributes(eventAttrs(method, params)...))
}

// sessionStarted counts a legacy session from its initialize to its end.
func (in *Instrumentation) sessionStarted(ss *mcpserver.Session, version string) {
	start := time.Now()
	ctx := context.Background()
	attrs := metric.WithAttributes(keyMCPVersion.String(version))
	in.sessions.Add(ctx, 1, attrs)
	ss.OnClose(func() {
		in.sessions.Add(ctx, -1, attrs)
		in.mcpSessionDuration.Record(ctx, seconds(start), attrs)
	})
}

// outcome records a request's failure on span, if it failed, and returns its
// error.type and rpc.status_code.
func outcome(span trace.Span, method string, res json.RawMessage, err error, code func(error) (string, string, string)) (errorType, statusCode string) {
	switch {
	case err != nil && !errors.Is(err, runtime.ErrNoResponse):
		et, sc, msg := code(err)
		fail(span, et, sc, msg)
		return et, sc
	case method == "tools/call" && mayBeError(res) && mcpclient.ResultIsError(res):
		fail(span, "tool_error", "", toolErrorText(res))
		return "tool_error", ""
	}
	return "", ""
}

// mayBeError reports whether a tools/call result res may have isError set:
// false, without a scan of its members, when no isError is written in it:
// with its E (one vectorised search; a result rarely has an E), or with the
// E escaped (\u0045).
func mayBeError(res []byte) bool {
	return bytes.IndexByte(res, 'E') >= 0 || bytes.Contains(res, escapedE)
}

var escapedE = []byte(`\u0045`)

// mcpMetricAttrs are the options of an MCP duration's measurement: the
// span's attributes less the high-cardinality ones (request id, session id,
// resource URI).
// ep is a client's endpoint (nil on the server, whose transport is given).
func (in *Instrumentation) mcpMetricAttrs(method, target, version, transport, errorType, statusCode string, ep *mcpclient.Endpoint) []metric.RecordOption {
	if method != "tools/call" && method != "prompts/get" {
		target = ""
	}
	k := attrKey{a: method, b: target, c: version, d: transport, e: errorType, f: statusCode}
	if ep != nil {
		k.d, k.g, k.n, k.h = ep.Transport, ep.Address, ep.Port, ep.Protocol
	}
	return in.attrSets.recordOpts(k, mcpMetricAttrsOf)
}

func mcpMetricAttrsOf(k attrKey) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 11)
	attrs = append(attrs, keyMCPMethod.String(k.a))
	if k.c != "" {
		attrs = append(attrs, keyMCPVersion.String(k.c))
	}
	attrs = appendEndpoint(attrs, &mcpclient.Endpoint{Transport: k.d, Address: k.g, Port: k.n, Protocol: k.h})
	attrs = appendTarget(attrs, k.a, k.b)
	return appendFailure(attrs, k.e, k.f)
}

// mcpStartAttrs are an MCP span's attributes at its start.
func mcpStartAttrs(k attrKey) []attribute.KeyValue {
	return []attribute.KeyValue{keyMCPMethod.String(k.b)}
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

// mcpKey names one kind of MCP request on one side: what its span's name
// and start options and its answer's measurement depend on.
type mcpKey struct {
	method, target, version, transport string // target: callTarget's
	addr, proto                        string // a client's server address and protocol
	port                               int    // its server port
}

func (k *mcpKey) len() int {
	return len(k.method) + len(k.target) + len(k.version) + len(k.transport) + len(k.addr) + len(k.proto)
}

// mcpKind is what the requests of one mcpKey share, built once.
type mcpKind struct {
	name   string                  // the span's
	start  []trace.SpanStartOption // the span's start options
	record []metric.RecordOption   // the duration's, for an answer (no error)
}

// callTarget is target when it goes into span names and the duration's
// attributes: a tool's or a prompt's name, not a resource's URI.
func callTarget(method, target string) string {
	if method != "tools/call" && method != "prompts/get" {
		return ""
	}
	return target
}

// mcpKind returns the kind k names from c, and whether it came from there;
// kind is the span kind, side "s" (server) or "c" (client).
func (in *Instrumentation) mcpKind(c *cache[mcpKey, *mcpKind], k *mcpKey, side string, kind trace.SpanStartOption) (*mcpKind, bool) {
	if v, ok := c.load(*k); ok {
		return v, true
	}
	return &mcpKind{name: spanName(k.method, k.target), start: in.starts.startOpts(attrKey{a: side, b: k.method}, kind, mcpStartAttrs)}, false
}

// answered returns the duration's options for a request of kind k answered
// without an error; a kind that was not cached is, now: only the tools and
// prompts a server has, not every name a peer makes up (which answer with an
// error), get there.
func (in *Instrumentation) answered(c *cache[mcpKey, *mcpKind], k *mcpKey, kind *mcpKind, cached bool) []metric.RecordOption {
	if cached {
		return kind.record
	}
	kind.record = in.attrSets.recordOpts(attrKey{a: k.method, b: k.target, c: k.version, d: k.transport, g: k.addr, h: k.proto, n: k.port}, mcpMetricAttrsOf)
	c.store(*k, k.len(), kind)
	return kind.record
}

func spanName(method, target string) string {
	if target != "" && (method == "tools/call" || method == "prompts/get") {
		return method + " " + target
	}
	return method
}

// mcpAttrs appends to attrs the span attributes of a request known before it
// runs, but for mcp.method.name, which the span starts with.
func mcpAttrs(attrs []attribute.KeyValue, id runtime.ID, method, target, version string) []attribute.KeyValue {
	if !id.IsZero() {
		attrs = append(attrs, keyJSONRPCRequestID.String(idString(id)))
	}
	if version != "" {
		attrs = append(attrs, keyMCPVersion.String(version))
	}
	return appendTarget(attrs, method, target)
}

func appendTarget(attrs []attribute.KeyValue, method, target string) []attribute.KeyValue {
	if target == "" {
		return attrs
	}
	switch method {
	case "tools/call":
		return append(attrs, keyGenAITool.String(target), keyGenAIOperation.String("execute_tool"))
	case "prompts/get":
		return append(attrs, keyGenAIPrompt.String(target))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return append(attrs, keyMCPResourceURI.String(target))
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
