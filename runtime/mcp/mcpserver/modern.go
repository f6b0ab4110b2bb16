package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// serveModern serves a 2026-07-28 request: stateless, everything it needs is
// in its own _meta. The checks run in the order the dual-era dispatch rules
// give: version, method, then the other required keys.
func (ss *Session) serveModern(ctx context.Context, req *runtime.Request, p *reqParams) (json.RawMessage, error) {
	method := req.Method
	if p.metaVersion == nil {
		return nil, errMissingMeta(mcp.MetaProtocolVersion)
	}
	if !rawStringIs(p.metaVersion, mcp.Version20260728) {
		requested, ok := unquote(p.metaVersion)
		if !ok {
			return nil, runtime.InvalidParams("_meta key %q must be a string", mcp.MetaProtocolVersion)
		}
		return nil, errUnsupportedVersion(requested)
	}
	m, ok := ss.srv.method(method, ver20260728)
	if !ok {
		return nil, runtime.ErrMethodNotFound(method)
	}
	if p.metaCaps == nil {
		return nil, errMissingMeta(mcp.MetaClientCapabilities)
	}
	if !isObject(p.metaCaps) {
		return nil, runtime.InvalidParams("_meta key %q must be an object", mcp.MetaClientCapabilities)
	}
	level := -1
	if p.metaLevel != nil {
		rank, ok := parseLevel(p.metaLevel)
		if !ok {
			return nil, errInvalidLevel(p.metaLevel)
		}
		level = rank
	}
	if !ss.srv.offers(m.Capability) {
		return nil, runtime.ErrMethodNotFound(method)
	}
	if err := clientDeclares(m, p.metaCaps); err != nil {
		return nil, err
	}
	return m.handle(ss, ctx, req, p, era{v: ver20260728, caps: p.metaCaps, level: level})
}

func errMissingMeta(key string) *runtime.Error {
	return runtime.InvalidParams("missing _meta key %q", key)
}

// errUnsupportedVersion is -32022, naming the revisions a stateless request
// may ask for; the legacy ones are reached through initialize.
func errUnsupportedVersion(requested string) *runtime.Error {
	data := append([]byte(`{"supported":["`+mcp.Version20260728+`"],"requested":`), jsonenc.AppendString(nil, requested)...)
	return &runtime.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: append(data, '}')}
}
