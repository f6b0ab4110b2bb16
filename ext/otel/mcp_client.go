package otel

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// MCPClient returns client middleware for an MCP client
// (mcpclient.Options.Middleware): a CLIENT span per request and notification,
// named and attributed as MCPServer's, whose trace context goes with the
// request in params._meta (every transport) and in HTTP headers (mcphttp); the
// progress notifications of the request as span events; network.transport,
// server.address, server.port and network.protocol.name as the transport
// says (mcpclient.Endpoint: the URL's host and port over mcphttp, a pipe to
// a subprocess); the mcp.client.operation.duration histogram,
// mcp.client.session.duration (a legacy session, from its initialize to its
// end) and rpcgen.client.active_requests.
func (in *Instrumentation) MCPClient() mcpclient.Middleware {
	if in.off {
		return in.offMCPClient
	}
	return func(next mcpclient.Handler) mcpclient.Handler {
		return func(ctx context.Context, req *mcpclient.Request) (json.RawMessage, error) {
			target := requestTarget(req)
			ep := &req.Server
			k := mcpKey{method: req.Method, target: callTarget(req.Method, target), version: req.ProtocolVersion, transport: ep.Transport, addr: ep.Address, proto: ep.Protocol, port: ep.Port}
			kind, cached := in.mcpKind(&in.clientKinds, &k, "c", clientKind)
			ctx, span := in.tracer.Start(ctx, kind.name, kind.start...)
			start := startTime(span)
			if span.IsRecording() {
				ab := getAttrs()
				attrs := mcpAttrs(*ab, req.ID, req.Method, target, req.ProtocolVersion)
				if req.SessionID != "" {
					attrs = append(attrs, keyMCPSessionID.String(req.SessionID))
				}
				attrs = appendEndpoint(attrs, &req.Server)
				span.SetAttributes(attrs...)
				putAttrs(ab, attrs)
				if req.WantsProgress() {
					prev := req.OnNotification
					req.OnNotification = func(method string, params json.RawMessage) {
						span.AddEvent(method, trace.WithAttributes(eventAttrs(method, params)...))
						if prev != nil {
							prev(method, params)
						}
					}
				}
			}
			in.prop.Inject(ctx, metaCarrier{req})
			in.clientActive.Add(ctx, 1, activeMCP...)
			res, err := next(in.mcpHeaders(ctx, &req.Server), req)
			in.clientActive.Add(ctx, -1, activeMCP...)
			et, sc := outcome(span, req.Method, res, err, errorCode)
			var record []metric.RecordOption
			if et == "" {
				record = in.answered(&in.clientKinds, &k, kind, cached)
			} else {
				record = in.mcpMetricAttrs(req.Method, target, req.ProtocolVersion, "", et, sc, &req.Server)
			}
			if req.Method == "initialize" && err == nil {
				in.clientSessionStarted(req, res)
			}
			in.mcpClientDuration.Record(ctx, endSpan(span, start), record...)
			return res, err
		}
	}
}

// clientSessionStarted measures the legacy session a successful
// initialize, whose result is res, started: from now to its end
// (mcpclient.Request.OnSessionEnd), with error.type session_expired when
// the server ended it and connection_lost when the connection did.
func (in *Instrumentation) clientSessionStarted(req *mcpclient.Request, res json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(res, &r) != nil || r.ProtocolVersion == "" {
		return
	}
	start := time.Now()
	ep := req.Server
	req.OnSessionEnd(func(err error) {
		var et string
		switch {
		case err == nil:
		case errors.Is(err, mcpclient.ErrSessionExpired):
			et = "session_expired"
		case errors.Is(err, runtime.ErrConnectionLost):
			et = "connection_lost"
		default:
			et = "_OTHER"
		}
		attrs := appendEndpoint([]attribute.KeyValue{keyMCPVersion.String(r.ProtocolVersion)}, &ep)
		if et != "" {
			attrs = append(attrs, keyErrorType.String(et))
		}
		in.mcpClientSessionDuration.Record(context.Background(), seconds(start), metric.WithAttributes(attrs...))
	})
}

// appendEndpoint appends what the conventions record of where an MCP
// client's requests go: network.transport, server.address, server.port and
// network.protocol.name, as far as the transport says.
func appendEndpoint(attrs []attribute.KeyValue, ep *mcpclient.Endpoint) []attribute.KeyValue {
	if ep.Transport != "" {
		attrs = append(attrs, keyNetTransport.String(ep.Transport))
	}
	if ep.Address != "" {
		attrs = append(attrs, keyServerAddress.String(ep.Address))
		if ep.Port != 0 {
			attrs = append(attrs, keyServerPort.Int(ep.Port))
		}
	}
	if ep.Protocol != "" {
		attrs = append(attrs, keyNetProtoName.String(ep.Protocol))
	}
	return attrs
}

// requestTarget is req.Target(), with a tool's or prompt's name interned
// (no copy of a name seen before) and params walked by runtime.ScanObject.
func requestTarget(req *mcpclient.Request) string {
	m := mcp.LookupMethod(req.Method)
	if m == nil || m.Target == "" {
		return ""
	}
	var v []byte
	o, ok := runtime.ScanObject(req.Params)
	for ok {
		key, val, more := o.Next()
		if !more {
			break
		}
		if string(key) == m.Target {
			v = val
		}
	}
	if m.Target == "name" {
		return targets.unquote(v)
	}
	s, _ := unquote(v)
	return s
}
