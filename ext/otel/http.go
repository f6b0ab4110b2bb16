package otel

import (
	"context"
	"net"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// HTTPHandler wraps the handler of rpchttp or mcphttp: it takes the trace
// context of each HTTP request's headers (traceparent, tracestate, baggage),
// so that a JSON-RPC server span is the child of the client's span, and an MCP
// server span links to it when the request's params._meta names another
// parent; and it tells the middleware below the transport (network.transport
// tcp, network.protocol.name http and its version, client.address).
func (in *Instrumentation) HTTPHandler(h http.Handler) http.Handler {
	if in.off {
		return in.offHTTPHandler(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := in.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		hi := &httpInfo{version: strconv.Itoa(r.ProtoMajor)}
		if r.ProtoMajor == 1 {
			hi.version = "1." + strconv.Itoa(r.ProtoMinor)
		}
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			hi.client = host
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(ctx, httpInfoKey{}, hi)))
	})
}

// httpInfo is what HTTPHandler knows of a request's transport.
type httpInfo struct {
	version string // network.protocol.version
	client  string // client.address
}

type httpInfoKey struct{}

// transportAttrs returns the network attributes of the request a server
// serves: over HTTP (HTTPHandler), tcp and http; else the connection's
// transport (runtime.TransportFromContext).
func transportAttrs(ctx context.Context, transport string, attrs []attribute.KeyValue) []attribute.KeyValue {
	hi, _ := ctx.Value(httpInfoKey{}).(*httpInfo)
	return httpAttrs(hi, transport, attrs)
}

// httpAttrs is transportAttrs for the request's httpInfo, nil when it came
// by no HTTPHandler.
func httpAttrs(hi *httpInfo, transport string, attrs []attribute.KeyValue) []attribute.KeyValue {
	if hi != nil {
		attrs = append(attrs, keyNetTransport.String("tcp"), keyNetProtoName.String("http"), keyNetProtoVersion.String(hi.version))
		if hi.client != "" {
			attrs = append(attrs, keyClientAddress.String(hi.client))
		}
		return attrs
	}
	if transport != "" {
		attrs = append(attrs, keyNetTransport.String(transport))
	}
	return attrs
}

// headers returns ctx with the trace context of its span as HTTP headers
// (runtime.WithCallHeaderFunc), which rpchttp's and mcphttp's clients send;
// they are made only for a request that has headers.
func (in *Instrumentation) headers(ctx context.Context) context.Context {
	if !hasTraceContext(ctx) {
		return ctx
	}
	return runtime.WithCallHeaderFunc(ctx, in.headerFunc)
}

// mcpHeaders is headers for an MCP client's request to ep: only HTTP
// (mcphttp, whose Endpoint says so) carries headers, so over any other
// transport ctx is left as it is.
func (in *Instrumentation) mcpHeaders(ctx context.Context, ep *mcpclient.Endpoint) context.Context {
	if !overHTTP(ep) {
		return ctx
	}
	return in.headers(ctx)
}

// overHTTP reports whether an MCP client's requests to ep go over HTTP.
func overHTTP(ep *mcpclient.Endpoint) bool { return ep.Protocol == "http" }

// hasTraceContext reports whether ctx has something to propagate: a valid
// span context or baggage.
func hasTraceContext(ctx context.Context) bool {
	return trace.SpanContextFromContext(ctx).IsValid() || baggage.FromContext(ctx).Len() > 0
}
