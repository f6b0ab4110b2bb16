package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"

	"github.com/rpcgen/rpcgen/runtime"
)

var errInvalidCursor = &runtime.Error{Code: runtime.CodeInvalidParams, Message: "invalid params: invalid cursor"}

// listTools returns the pre-encoded tools/list page the cursor points at.
func (s *Server) listTools(v ver, cursor []byte) (json.RawMessage, error) {
	r := s.reg.Load()
	return listPage(s.encodedFor(r, v).pages, cursorPrefix, s.opts.PageSize, len(r.tools), cursor)
}

// lookup finds the tool a tools/call names.
func (s *Server) lookup(name []byte) (*Tool, error) {
	if name == nil {
		return nil, runtime.InvalidParams(`missing "name"`)
	}
	if len(name) < 2 || name[0] != '"' {
		return nil, runtime.InvalidParams(`"name" must be a string`)
	}
	r := s.reg.Load()
	if t := r.tool(string(name[1 : len(name)-1])); t != nil {
		return t, nil
	}
	s2, _ := unquote(name) // a name written with escapes
	if t := r.tool(s2); t != nil {
		return t, nil
	}
	return nil, runtime.InvalidParams("unknown tool %s", name)
}

// callTool runs a tools/call. cc comes with the era's fields set; the rest is
// filled in here. A request cancelled before its response is produced gets no
// response at all (runtime.ErrNoResponse).
func (ss *Session) callTool(ctx context.Context, cc *callCtx, p *reqParams) (json.RawMessage, error) {
	t, err := ss.srv.lookup(p.name)
	if err != nil {
		return nil, err
	}
	args := p.arguments
	if string(args) == "null" {
		args = nil
	}
	if args != nil && !isObject(args) {
		return nil, runtime.InvalidParams(`"arguments" must be an object`)
	}
	if err := ss.beginCall(ctx, cc, "tools/call", p); err != nil {
		return nil, err
	}
	res, err := ss.run(cc, t, args)
	if cc.finish() {
		return nil, runtime.ErrNoResponse
	}
	if r, ok := cc.inputRequired(); ok {
		return r, nil
	}
	if err != nil {
		var re *runtime.Error
		if errors.As(err, &re) && re.Code == CodeMissingClientCapability {
			return nil, re
		}
		return ss.srv.errorResult(cc.v, toolErrorText(err)), nil
	}
	if t.Content {
		return ss.srv.contentResult(cc.v, t, res, ss), nil
	}
	return ss.srv.toolResult(cc.v, t, res, ss), nil
}

// run calls the tool's handler, turning a panic into an error the model sees
// as a failed call, so one bad call cannot stop the server.
func (ss *Session) run(cc *callCtx, t *Tool, args json.RawMessage) (res json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.logger.Error("mcp: tool panicked", "tool", t.Name, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, errors.New("internal error in tool "+t.Name)
		}
	}()
	return t.Handler(cc, args)
}

// toolErrorText is the text a failed call shows the model: the message of a
// *runtime.Error (such as a validation error: "invalid params: …"), without
// the "jsonrpc:" prefix and code its Error method adds, or else err.Error().
func toolErrorText(err error) string {
	if re, ok := err.(*runtime.Error); ok && re != nil {
		return re.Message
	}
	return err.Error()
}

// errorResult encodes a CallToolResult with isError set.
func (s *Server) errorResult(v ver, text string) json.RawMessage {
	b := make([]byte, 0, len(text)+64+len(s.modernTail))
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = runtime.AppendJSONString(b, text)
	b = append(b, `}],"isError":true`...)
	return s.endResult(b, v)
}

// toolResult encodes the CallToolResult of a tool's result res: an object is
// the structuredContent (2025-06-18 and later; any value in 2026-07-28) and,
// for older clients and as the protocol recommends, the same JSON as a text
// block; no result (nil or null) is an empty content list, or an error when
// the tool declares an output schema, which no result can conform to (a Go
// method returning a nil pointer or map).
func (s *Server) toolResult(v ver, t *Tool, res json.RawMessage, ss *Session) json.RawMessage {
	name := t.Name
	for len(res) > 0 && (res[0] == ' ' || res[0] == '\t' || res[0] == '\n' || res[0] == '\r') {
		res = res[1:]
	}
	if len(res) == 0 || string(res) == "null" {
		if t.OutputSchema != nil {
			ss.logger.Error("mcp: tool returned no result but declares an output schema", "tool", name)
			return s.errorResult(v, "tool "+name+" returned no result")
		}
		return s.endResult(append(make([]byte, 0, 16+len(s.modernTail)), `{"content":[]`...), v)
	}
	if !json.Valid(res) {
		ss.logger.Error("mcp: tool returned invalid JSON", "tool", name)
		return s.errorResult(v, "internal error in tool "+name)
	}
	structured := v.structured() && (res[0] == '{' || v.modern())
	b := make([]byte, 0, 2*len(res)+80+len(s.modernTail))
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = runtime.AppendJSONString(b, res)
	b = append(b, "}]"...)
	if structured {
		b = append(b, `,"structuredContent":`...)
		b = append(b, res...)
	}
	return s.endResult(b, v)
}

// endResult closes a result object, with the fields 2026-07-28 requires.
func (s *Server) endResult(b []byte, v ver) []byte {
	if v.modern() {
		return append(b, s.modernTail...)
	}
	return append(b, '}')
}
