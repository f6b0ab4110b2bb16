package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// ServerExtension is an extension (SEP-2133) a server declares, and the
// methods of it the server answers.
type ServerExtension struct {
	// ID is the extension's identifier, such as "com.example/search"
	// (mcp.CheckExtensionID).
	ID string
	// Settings is the extension's settings object, declared in the server's
	// capabilities; nil declares {}.
	Settings json.RawMessage
	// Methods holds a handler for each request of the extension the server
	// answers, by method name. Each must be a row of the method table
	// (mcp.RegisterMethod) whose Extension is ID and that a client sends
	// (Direction ClientToServer or BothWays). None is fine: an extension
	// such as MCP Apps adds no method, only fields the server and the
	// client read when both declared it (ClientExtension).
	Methods map[string]ExtensionHandler
	// ServeUndeclared answers the extension's methods for clients that did
	// not declare the extension too, for an extension whose requests need
	// nothing of the client (Skills: a host lists and reads a server's
	// skills whether or not it declared the extension). By default such a
	// client gets mcp.ErrExtensionRequired (-32021).
	ServeUndeclared bool
}

// ExtensionHandler answers one request of an extension's method. params is
// the request's params object as the client sent it, _meta included ({}
// when it sent none). ctx is the request's, for the call helpers as a tool
// has them: ClientExtension, ClientCapabilities, ProtocolVersion, Progress,
// Log and the ask package.
//
// The result must encode as a JSON object (a json.RawMessage is sent as it
// is, once checked); nil, or JSON null, is an empty one. In 2026-07-28 the server completes it as every result
// of that revision: "resultType":"complete" unless the result has its own
// resultType, and the server's serverInfo joined to its _meta. An error that
// is a *runtime.Error is answered as it is (runtime.InvalidParams for bad
// params, say); any other error, or a panic, is an internal error
// (-32603) with the error's text. A 2026-07-28 handler may not answer
// input_required unless the method's row says InputRequired.
type ExtensionHandler func(ctx context.Context, params json.RawMessage) (any, error)

// AddExtension declares ext in the server's capabilities (initialize and
// server/discover results, from then on) and serves its methods: a client
// that declared the extension in its capabilities gets them answered;
// one that did not gets mcp.ErrExtensionRequired (-32021). It panics on a
// programmer error: an identifier mcp.CheckExtensionID refuses or already
// added, settings that are not a JSON object, a method not in the table
// with Extension ID, one a client does not send, or a nil handler.
func (s *Server) AddExtension(ext ServerExtension) {
	if err := mcp.CheckExtensionID(ext.ID); err != nil {
		panic("mcpserver: AddExtension: " + err.Error())
	}
	settings, err := mcp.CompactSettings(ext.ID, ext.Settings)
	if err != nil {
		panic("mcpserver: AddExtension: " + err.Error())
	}
	methods := make(map[string]serverMethod, len(ext.Methods))
	for name, h := range ext.Methods {
		row := mcp.LookupMethod(name)
		switch {
		case row == nil:
			panic(fmt.Sprintf("mcpserver: AddExtension %s: method %q is not in the method table: register it with mcp.RegisterMethod", ext.ID, name))
		case row.Extension != ext.ID:
			panic(fmt.Sprintf("mcpserver: AddExtension %s: method %q belongs to %q, not to this extension", ext.ID, name, row.Extension))
		case row.Direction&mcp.ClientToServer == 0:
			panic(fmt.Sprintf("mcpserver: AddExtension %s: method %q is not sent by a client", ext.ID, name))
		case row.Notification:
			panic(fmt.Sprintf("mcpserver: AddExtension %s: %q is a notification: it gets no answer", ext.ID, name))
		case h == nil:
			panic(fmt.Sprintf("mcpserver: AddExtension %s: method %q has a nil handler", ext.ID, name))
		}
		methods[name] = serverMethod{Method: row, handle: extensionHandle(h), undeclared: ext.ServeUndeclared}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.reg.Load()
	for _, e := range old.exts {
		if e.ID == ext.ID {
			panic(fmt.Sprintf("mcpserver: AddExtension: extension %q was already added", ext.ID))
		}
	}
	r := old.next()
	r.exts = append(old.exts[:len(old.exts):len(old.exts)], mcp.Extension{ID: ext.ID, Settings: settings})
	r.extMethods = maps.Clone(old.extMethods)
	if r.extMethods == nil {
		r.extMethods = make(map[string]serverMethod, len(methods))
	}
	maps.Copy(r.extMethods, methods)
	s.reg.Store(r.finish())
}

// Extensions returns the extensions the server declares, in the order they
// were added.
func (s *Server) Extensions() []mcp.Extension {
	exts := s.reg.Load().exts
	out := make([]mcp.Extension, len(exts))
	for i, e := range exts {
		out[i] = mcp.Extension{ID: e.ID, Settings: bytes.Clone(e.Settings)}
	}
	return out
}

// ClientExtension returns the settings the client declared for the extension
// id, and whether it declared it: in the request's _meta clientCapabilities
// in 2026-07-28, in initialize's capabilities in a legacy session. ctx is a
// handler's (a tool's, a resource's, a prompt's, a completion's or an
// extension method's); any other context declares nothing. A server reads
// it to offer an extension's features only to the clients that declared it,
// falling back to the protocol's own behaviour for the others, as SEP-2133
// asks.
func ClientExtension(ctx context.Context, id string) (json.RawMessage, bool) {
	cc := callFrom(ctx)
	if cc == nil {
		return nil, false
	}
	settings, ok := mcp.ExtensionSettings(cc.caps, id)
	return bytes.Clone(settings), ok
}

// clientDeclares checks that the client declared the extension the method
// m belongs to, if any, in its capabilities caps, unless the extension is
// served to clients that did not (ServeUndeclared).
func clientDeclares(m serverMethod, caps []byte) error {
	if m.Extension == "" || m.undeclared {
		return nil
	}
	if _, ok := mcp.ExtensionSettings(caps, m.Extension); !ok {
		return mcp.ErrExtensionRequired(m.Extension)
	}
	return nil
}

// extensionHandle adapts an ExtensionHandler to the dispatch's handlers.
func extensionHandle(h ExtensionHandler) serverHandler {
	return func(ss *Session, ctx context.Context, req *runtime.Request, p *reqParams, e era) (json.RawMessage, error) {
		cc := e.callCtx()
		if err := ss.beginCall(ctx, cc, req.Method, p); err != nil {
			return nil, err
		}
		params := req.Params
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{}`)
		}
		res, err := ss.runExtension(cc, h, req.Method, params)
		if cc.finish() {
			return nil, runtime.ErrNoResponse
		}
		if err != nil {
			var re *runtime.Error
			if errors.As(err, &re) && re != nil {
				return nil, re
			}
			return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: err.Error()}
		}
		return ss.srv.encodeExtensionResult(req.Method, res, e.v)
	}
}

// runExtension calls an extension's handler, turning a panic into an
// internal error.
func (ss *Session) runExtension(cc *callCtx, h ExtensionHandler, method string, params json.RawMessage) (res any, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.logger.Error("mcp: extension handler panicked", "method", method, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, errors.New("internal error in "+method)
		}
	}()
	return h(cc, params)
}

// encodeExtensionResult encodes what an extension's handler returned as
// revision v sends a result.
func (s *Server) encodeExtensionResult(method string, res any, v ver) (json.RawMessage, error) {
	raw, ok := res.(json.RawMessage)
	if res == nil || ok && (len(raw) == 0 || string(raw) == "null") {
		raw, ok = json.RawMessage(`{}`), true // no result: an empty one
	}
	if !ok {
		var err error
		if raw, err = json.Marshal(res); err != nil {
			return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: fmt.Sprintf("encode the result of %s: %v", method, err)}
		}
	} else if !json.Valid(raw) {
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "the result of " + method + " is not valid JSON"}
	}
	o, ok := runtime.ScanObject(raw)
	if !ok {
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "the result of " + method + " is not a JSON object"}
	}
	if !v.modern() {
		return raw, nil
	}
	b := make([]byte, 0, len(raw)+len(s.modernTail)+16)
	b = append(b, '{')
	var meta []byte
	typed := false
	for {
		key, val, ok := o.Next()
		if !ok {
			break
		}
		switch string(key) {
		case "_meta":
			if isObject(val) {
				meta = val
			}
			continue
		case "resultType":
			typed = true
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, key)
		b = append(b, ':')
		b = append(b, val...)
	}
	if !typed {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"resultType":"complete"`...)
	}
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(b, `"_meta":{"`+mcp.MetaServerInfo+`":`...)
	b = append(b, s.modernInfo...)
	return append(appendMetaMembers(b, meta), '}', '}'), nil
}
