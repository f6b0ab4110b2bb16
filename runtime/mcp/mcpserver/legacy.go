package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Errors of the legacy lifecycle.
var (
	errNotInitialized     = &runtime.Error{Code: runtime.CodeInvalidRequest, Message: "session not initialized: send initialize first"}
	errAlreadyInitialized = &runtime.Error{Code: runtime.CodeInvalidRequest, Message: "session already initialized"}
)

// emptyResult answers ping and logging/setLevel.
var emptyResult = json.RawMessage(`{}`)

// serveLegacy serves a request of the session-based era (2024-11-05 to
// 2025-11-25): initialize and ping at any time, every other method the
// table gives the session's revision once initialize has chosen it.
func (ss *Session) serveLegacy(ctx context.Context, req *runtime.Request, p *reqParams) (json.RawMessage, error) {
	switch req.Method {
	case mcp.MethodInitialize:
		return ss.initialize(ctx, p)
	case mcp.MethodPing:
		return emptyResult, nil
	}
	st := ss.state.Load()
	if st == nil {
		return nil, errNotInitialized
	}
	m, ok := ss.srv.method(req.Method, st.v)
	if !ok || !ss.srv.offers(m.Capability) {
		return nil, runtime.ErrMethodNotFound(req.Method)
	}
	if err := clientDeclares(m, st.caps); err != nil {
		return nil, err
	}
	return m.handle(ss, ctx, req, p, era{v: st.v, caps: st.caps, level: -1})
}

// setLevel serves logging/setLevel.
func (ss *Session) setLevel(ctx context.Context, p *reqParams) (json.RawMessage, error) {
	if p.level == nil {
		return nil, runtime.InvalidParams(`missing "level"`)
	}
	rank, ok := parseLevel(p.level)
	if !ok {
		return nil, errInvalidLevel(p.level)
	}
	if err := ss.changeState(ctx, StateChange{LogLevel: levelNames[rank]}); err != nil {
		return nil, err
	}
	ss.level.Store(int32(rank) + 1)
	return emptyResult, nil
}

// initialize starts the legacy lifecycle. The version rule: a revision the
// server speaks is echoed; any other, 2026-07-28 included (it has no
// initialize), gets the newest legacy revision, 2025-11-25.
func (ss *Session) initialize(ctx context.Context, p *reqParams) (json.RawMessage, error) {
	if p.protocolVersion == nil {
		return nil, runtime.InvalidParams(`missing "protocolVersion"`)
	}
	requested, ok := unquote(p.protocolVersion)
	if !ok {
		return nil, runtime.InvalidParams(`"protocolVersion" must be a string`)
	}
	v := legacyVersion(requested)
	if v == verNone {
		v = ver20251125
	}
	caps := json.RawMessage(`{}`)
	if isObject(p.capabilities) {
		caps = bytes.Clone(p.capabilities)
	}
	ss.initMu.Lock()
	defer ss.initMu.Unlock()
	if ss.state.Load() != nil {
		return nil, errAlreadyInitialized
	}
	ss.state.Store(&legacyState{v: v, caps: caps})
	r := ss.srv.reg.Load()
	ss.initialized(ctx, r.kinds)
	return ss.srv.encodedFor(r, v).handshake, nil
}

// allowsLog reports whether the session's logging/setLevel threshold lets a
// message of the given rank through.
func (ss *Session) allowsLog(rank int) bool {
	min := ss.level.Load()
	return min == 0 || int32(rank)+1 >= min
}
