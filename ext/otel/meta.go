package otel

import (
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// What the MCP middleware reads from a request's params and writes into
// them: the target (a tool's name or a resource's URI), and the trace
// context and protocol version in params._meta.

// params are the members of a request's params the server middleware reads.
type params struct {
	target  string // name (tools/call, prompts/get) or uri
	version string // _meta's io.modelcontextprotocol/protocolVersion
	carrier traceCarrier
}

// traceCarrier holds _meta's trace context members.
type traceCarrier struct {
	found                          bool
	traceparent, tracestate, bggge string
}

func (c *traceCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.traceparent
	case "tracestate":
		return c.tracestate
	case "baggage":
		return c.bggge
	}
	return ""
}

func (c *traceCarrier) Set(string, string) {}

func (c *traceCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

func (p *params) scan(raw json.RawMessage) {
	o, ok := runtime.ScanObject(raw)
	for ok {
		key, val, more := o.Next()
		if !more {
			break
		}
		switch string(key) {
		case "name":
			p.target = targets.unquote(val) // a tool's or prompt's: few
		case "uri":
			p.target, _ = unquote(val) // a resource's: any number of them
		case "_meta":
			p.carrier.scanMeta(val, &p.version)
		}
	}
}

// scanMeta reads the trace context members of _meta's value meta into c,
// and its protocol version into version unless that is nil.
func (c *traceCarrier) scanMeta(meta []byte, version *string) {
	m, ok := runtime.ScanObject(meta)
	for ok {
		k, v, more := m.Next()
		if !more {
			break
		}
		switch string(k) {
		case "traceparent":
			c.traceparent, c.found = unquoteOr(v, c.found)
		case "tracestate":
			c.tracestate, c.found = unquoteOr(v, c.found)
		case "baggage":
			c.bggge, c.found = unquoteOr(v, c.found)
		case mcp.MetaProtocolVersion:
			if version != nil {
				*version = protocolVersion(v)
			}
		}
	}
}

// protocolVersion is the revision the JSON string v names: one of the
// package mcp's constants when it is one (no copy), else v unquoted.
func protocolVersion(v []byte) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		inner := v[1 : len(v)-1]
		for _, vs := range [][]string{mcp.ModernVersions, mcp.LegacyVersions} {
			for _, known := range vs {
				if string(inner) == known {
					return known
				}
			}
		}
	}
	s, _ := unquote(v)
	return s
}

// unquoteOr unquotes v and reports whether it or found holds.
func unquoteOr(v []byte, found bool) (string, bool) {
	s, ok := unquote(v)
	return s, ok || found
}

// metaCarrier injects trace context into a request's params._meta.
type metaCarrier struct{ req *mcpclient.Request }

func (c metaCarrier) Get(string) string     { return "" }
func (c metaCarrier) Set(key, value string) { c.req.SetMeta(key, value) }
func (c metaCarrier) Keys() []string        { return nil }
