package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// The server's side of the method table: the handler of every request a
// client sends, found by the request's method. Dispatch checks what the
// table says of the method (the revisions that have it, the capability that
// gates it) before the handler runs, so a handler only serves.

// era is what a handler needs of the era a request is served in: the
// revision, the client's capabilities, and (2026-07-28) the request's log
// level rank, -1 for no logging.
type era struct {
	v     ver
	caps  []byte
	level int
}

// callCtx returns a fresh call context for a handler that runs user code.
func (e era) callCtx() *callCtx { return &callCtx{v: e.v, caps: e.caps, level: e.level} }

// serverHandler serves one request of its method.
type serverHandler func(ss *Session, ctx context.Context, req *runtime.Request, p *reqParams, e era) (json.RawMessage, error)

// serverMethod is a row of the method table and the handler that serves it.
type serverMethod struct {
	*mcp.Method
	handle serverHandler
	// undeclared serves an extension's method to clients that did not
	// declare the extension (ServerExtension.ServeUndeclared).
	undeclared bool
}

// serverMethods joins the rows of the methods the server answers to their
// handlers. It is built on first use: a program pays nothing for it at
// start-up. initialize and ping are served apart (serveLegacy), before a
// session has a revision.
var serverMethods struct {
	once sync.Once
	m    map[string]serverMethod
}

func loadServerMethods() map[string]serverMethod {
	serverMethods.once.Do(func() {
		m := map[string]serverMethod{
			mcp.MethodServerDiscover: {handle: func(ss *Session, _ context.Context, _ *runtime.Request, _ *reqParams, e era) (json.RawMessage, error) {
				return ss.srv.encodedFor(ss.srv.reg.Load(), e.v).handshake, nil
			}},
			mcp.MethodToolsList: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.srv.listTools(ctx, e.v, p.cursor)
			}},
			mcp.MethodToolsCall: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.callTool(ctx, e.callCtx(), p)
			}},
			mcp.MethodResourcesList: {handle: func(ss *Session, _ context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.srv.listResources(e.v, p.cursor)
			}},
			mcp.MethodResourcesTemplatesList: {handle: func(ss *Session, _ context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.srv.listResourceTemplates(e.v, p.cursor)
			}},
			mcp.MethodResourcesRead: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.readResource(ctx, e.callCtx(), p)
			}},
			mcp.MethodResourcesSubscribe: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, _ era) (json.RawMessage, error) {
				return ss.subscribe(ctx, p)
			}},
			mcp.MethodResourcesUnsubscribe: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, _ era) (json.RawMessage, error) {
				return ss.unsubscribe(ctx, p)
			}},
			mcp.MethodPromptsList: {handle: func(ss *Session, _ context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.srv.listPrompts(e.v, p.cursor)
			}},
			mcp.MethodPromptsGet: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.getPrompt(ctx, e.callCtx(), p)
			}},
			mcp.MethodCompletionComplete: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.complete(ctx, e.callCtx(), p)
			}},
			mcp.MethodLoggingSetLevel: {handle: func(ss *Session, ctx context.Context, _ *runtime.Request, p *reqParams, _ era) (json.RawMessage, error) {
				return ss.setLevel(ctx, p)
			}},
			mcp.MethodSubscriptionsListen: {handle: func(ss *Session, ctx context.Context, req *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
				return ss.listen(ctx, req, p, e.caps)
			}},
		}
		for name, sm := range m {
			sm.Method = mcp.LookupMethod(name)
			m[name] = sm
		}
		serverMethods.m = m
	})
	return serverMethods.m
}

// method returns what serves method in revision v: its row and handler;
// false when the server has none in that revision (an extension's method
// is served once AddExtension declared the extension). The caller checks
// the capability that gates it (offers) and, for an extension's method,
// that the client declared the extension (clientDeclares).
func (s *Server) method(name string, v ver) (serverMethod, bool) {
	m, ok := loadServerMethods()[name]
	if !ok {
		m, ok = s.reg.Load().extMethods[name]
	}
	if !ok || !m.In(verNames[v]) {
		return serverMethod{}, false
	}
	return m, true
}

// offers reports whether the server offers capability, as the table names
// capabilities: tools and logging always; resources, their subscriptions,
// prompts and completions when something is registered to serve them.
func (s *Server) offers(capability string) bool {
	k := s.reg.Load().kinds
	switch capability {
	case "", "tools", "logging":
		return true
	case "resources", "resources.subscribe":
		return k&kindResources != 0
	case "prompts":
		return k&kindPrompts != 0
	case "completions":
		return k.completions()
	}
	return false
}
