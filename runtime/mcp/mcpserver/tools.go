package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

var errInvalidCursor = &runtime.Error{Code: runtime.CodeInvalidParams, Message: "invalid params: invalid cursor"}

// listTools returns the pre-encoded tools/list page the cursor points at.
func (s *Server) listTools(ctx context.Context, v ver, cursor []byte) (json.RawMessage, error) {
	r := s.reg.Load()
	if tools := visibleTools(r.tools, GrantFromContext(ctx)); tools != nil {
		// A list of the caller's own: encoded for this request, and private
		// to it in 2026-07-28.
		pages := s.encodeToolList(tools, v, true)
		return listPage(pages, cursorPrefix, s.opts.PageSize, len(tools), cursor)
	}
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
	if g := GrantFromContext(ctx); g != nil {
		if missing := MissingScopes(t.Scopes, g.Scopes); missing != nil {
			return nil, errInsufficientScope(t.Name, missing)
		}
	}
	args := p.arguments
	if string(args) == "null" {
		args = nil
	}
	if args != nil && !isObject(args) {
		return nil, runtime.InvalidParams(`"arguments" must be an object`)
	}
	if err := ss.beginCall(ctx, cc, mcp.MethodToolsCall, p); err != nil {
		return nil, err
	}
	asTask, err := ss.taskMode(cc, t)
	if err != nil {
		return nil, err
	}
	if asTask && !t.TaskBegins {
		return ss.startTask(cc, t, args)
	}
	cc.prelude = asTask
	if t.Append != nil && ss.srv.tools == nil && !t.Content && t.Task == TaskNever {
		return ss.appendTool(cc, t, args)
	}
	res, err := ss.run(cc, t, args)
	if cc.finish() {
		return nil, runtime.ErrNoResponse
	}
	if r, ok := cc.inputRequired(); ok {
		return r, nil
	}
	if cc.begun {
		return ss.startTask(cc, t, args)
	}
	if err != nil {
		return ss.callError(cc, t, err)
	}
	if t.Content {
		return ss.srv.contentResult(cc.v, t, res, ss), nil
	}
	return ss.srv.toolResult(cc.v, t, res, ss), nil
}

// appendTool runs a tool through its Append (see Tool.Append): the result is
// encoded into a pooled buffer, and the CallToolResult around it into
// another, which the transport's Handle takes back once it has copied the
// response (resultBuffers); a stream transport's response is the
// CallToolResult's own slice, as before.
func (ss *Session) appendTool(cc *callCtx, t *Tool, args json.RawMessage) (json.RawMessage, error) {
	scratch := getResultBuffer()
	defer putResultBuffer(scratch)
	res, err := ss.runAppend(cc, t, args, (*scratch)[:0])
	if cap(res) > cap(*scratch) {
		*scratch = res[:0] // keep the grown buffer for the next call
	}
	if cc.finish() {
		return nil, runtime.ErrNoResponse
	}
	if r, ok := cc.inputRequired(); ok {
		return r, nil
	}
	if err != nil {
		return ss.callError(cc, t, err)
	}
	return ss.srv.appendToolResult(cc, t, res), nil
}

// runAppend is run for a tool's Append.
func (ss *Session) runAppend(cc *callCtx, t *Tool, args json.RawMessage, dst []byte) (res json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.logger.Error("mcp: tool panicked", "tool", t.Name, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, internalToolError(t.Name)
		}
	}()
	return t.Append(cc, args, dst)
}

// callError is the answer to a call whose tool failed with err: a protocol
// error, or an error result.
func (ss *Session) callError(cc *callCtx, t *Tool, err error) (json.RawMessage, error) {
	{
		if pe := asProtocolError(err); pe != nil {
			return nil, pe
		}
		re := toolError(err)
		if re.Code == mcp.CodeMissingClientCapability {
			return nil, re
		}
		var sf *streamFailure
		if errors.As(err, &sf) {
			return ss.srv.toolErrorResult(cc.v, t, re, appendStreamItemsMeta(appendErrorMeta(nil, re), sf.items)), nil
		}
		return ss.srv.toolErrorResult(cc.v, t, re, appendErrorMeta(nil, re)), nil
	}
}

// run calls the tool's handler, turning a panic into an error the model sees
// as a failed call, so one bad call cannot stop the server.
func (ss *Session) run(cc *callCtx, t *Tool, args json.RawMessage) (res json.RawMessage, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.logger.Error("mcp: tool panicked", "tool", t.Name, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, internalToolError(t.Name)
		}
	}()
	if ss.srv.tools != nil {
		return ss.srv.tools(cc, &ToolCall{Tool: t, Arguments: args, Principal: principalFrom(cc), Session: ss,
			ProtocolVersion: verNames[cc.v], RequestID: runtime.RequestIDFromContext(cc)})
	}
	return t.Handler(cc, args)
}

// toolError is the error a failed call reports: a *runtime.Error anywhere
// in err's chain as it is (as a JSON-RPC dispatcher answers with it), any
// other error as code CodeServerError with err's text as the message.
func toolError(err error) *runtime.Error {
	var re *runtime.Error
	if errors.As(err, &re) && re != nil {
		return re
	}
	return &runtime.Error{Code: runtime.CodeServerError, Message: err.Error()}
}

// internalToolError is what a tool that panicked or returned a malformed
// result reports; a JSON-RPC dispatcher answers a panic with the same code.
func internalToolError(tool string) *runtime.Error {
	return &runtime.Error{Code: runtime.CodeInternalError, Message: "internal error in tool " + tool}
}

// errorResult encodes a CallToolResult with isError set for the error e:
// its message is the text a model reads (without the "jsonrpc:" prefix and
// code that e.Error adds), and its code, message and data go under the
// MetaError key of _meta, where a typed client finds them (docs/mcp.md,
// "Tool errors").
func (s *Server) errorResult(v ver, e *runtime.Error) json.RawMessage {
	return s.errorResultMeta(v, e, appendErrorMeta(nil, e))
}

// errorResultMeta is errorResult with meta as the result's _meta.
func (s *Server) errorResultMeta(v ver, e *runtime.Error, meta []byte) json.RawMessage {
	b := make([]byte, 0, 2*len(e.Message)+len(meta)+64+len(s.modernTail))
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = jsonenc.AppendString(b, e.Message)
	b = append(b, `}],"isError":true`...)
	return s.endResultMeta(b, v, meta)
}

// toolErrorResult is errorResultMeta for an error of tool t. An error the
// tool declares is named in the text, "DivisionByZero (code 1001): division
// by zero", as the tool's description names it, and its data follows in a
// second text block holding the JSON-RPC error object, which any client can
// read without knowing rpcgen's _meta key.
func (s *Server) toolErrorResult(v ver, t *Tool, e *runtime.Error, meta []byte) json.RawMessage {
	name := declaredName(t, e.Code)
	if name == "" {
		return s.errorResultMeta(v, e, meta)
	}
	b := make([]byte, 0, 2*len(e.Message)+2*len(meta)+len(name)+128+len(s.modernTail))
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = jsonenc.AppendString(b, name+" (code "+strconv.FormatInt(e.Code, 10)+"): "+e.Message)
	if len(e.Data) > 0 && json.Valid(e.Data) {
		b = append(b, `},{"type":"text","text":`...)
		b = jsonenc.AppendString(b, string(appendErrorObject(nil, e)))
	}
	b = append(b, `}],"isError":true`...)
	return s.endResultMeta(b, v, meta)
}

// declaredName is the name of the error with code that t declares, "" when
// it declares none with it.
func declaredName(t *Tool, code int64) string {
	for _, d := range t.Errors {
		if d.Code == code {
			return d.Name
		}
	}
	return ""
}

// appendStreamItemsMeta adds to meta, an object appendErrorMeta wrote, the
// items a stream tool produced before it failed, under mcp.MetaStreamItems.
func appendStreamItemsMeta(meta []byte, items json.RawMessage) []byte {
	meta = append(meta[:len(meta)-1], `,"`+mcp.MetaStreamItems+`":`...)
	meta = append(meta, items...)
	return append(meta, '}')
}

// appendErrorMeta appends the _meta object of a failed call's result:
// {"io.github.rpcgen/error":{"code":…,"message":…,"data":…}}.
func appendErrorMeta(b []byte, e *runtime.Error) []byte {
	b = append(b, `{"`+mcp.MetaError+`":`...)
	return append(appendErrorObject(b, e), '}')
}

// appendErrorObject appends e as a JSON-RPC error object:
// {"code":…,"message":…,"data":…}.
func appendErrorObject(b []byte, e *runtime.Error) []byte {
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = jsonenc.AppendString(b, e.Message)
	if len(e.Data) > 0 && json.Valid(e.Data) {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, '}')
}

// nullResult encodes the result of a tool whose handler returned null (a Go
// method's nil pointer or map) although the tool declares an output schema.
// Before 2025-06-18 there are no output schemas, and the result is the text
// "null", which a client decodes as it decodes any result. From 2025-06-18
// the protocol wants structured content that conforms to the schema, which
// null cannot; the one conforming answer that says "nothing" is an error
// result, so the model reads that the tool returned no result, and the
// MetaNull key tells a typed client to return the zero value and no error,
// as the JSON-RPC client does for "result": null.
func (s *Server) nullResult(v ver, t *Tool) json.RawMessage {
	if !v.structured() {
		return s.endResult(append(make([]byte, 0, 48+len(s.modernTail)), `{"content":[{"type":"text","text":"null"}]`...), v)
	}
	b := make([]byte, 0, len(t.Name)+96+len(s.modernTail))
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = jsonenc.AppendString(b, "tool "+t.Name+" returned no result (null)")
	b = append(b, `}],"isError":true`...)
	return s.endResultMeta(b, v, []byte(`{"`+mcp.MetaNull+`":true}`))
}

// toolResult encodes the CallToolResult of a tool's result res: an object is
// the structuredContent (2025-06-18 and later; any value in 2026-07-28) and,
// for older clients and as the protocol recommends, the same JSON as a text
// block; no result (nil or null) is an empty content list, or, when the tool
// declares an output schema, nullResult's answer.
func (s *Server) toolResult(v ver, t *Tool, res json.RawMessage, ss *Session) json.RawMessage {
	name := t.Name
	for len(res) > 0 && (res[0] == ' ' || res[0] == '\t' || res[0] == '\n' || res[0] == '\r') {
		res = res[1:]
	}
	if len(res) == 0 || string(res) == "null" {
		if t.OutputSchema != nil {
			return s.nullResult(v, t)
		}
		return s.endResult(append(make([]byte, 0, 16+len(s.modernTail)), `{"content":[]`...), v)
	}
	// Tool middleware may replace a trusted handler's result with its own.
	if !(t.TrustResults && s.tools == nil) && !json.Valid(res) {
		ss.logger.Error("mcp: tool returned invalid JSON", "tool", name)
		return s.errorResult(v, internalToolError(name))
	}
	return s.encodeToolResult(v, res, nil)
}

// appendToolResult is toolResult for a result a tool's Append wrote: valid
// JSON by construction. Under Handle with no method middleware (which could
// keep the result), the CallToolResult goes into a pooled buffer that Handle
// takes back once the response holds a copy.
func (s *Server) appendToolResult(cc *callCtx, t *Tool, res json.RawMessage) json.RawMessage {
	if len(res) == 0 || string(res) == "null" {
		return s.toolResult(cc.v, t, res, cc.ss)
	}
	if cc.hc == nil || len(s.opts.Middleware) > 0 {
		return s.encodeToolResult(cc.v, res, nil)
	}
	buf := getResultBuffer()
	if !cc.hc.result.CompareAndSwap(nil, buf) {
		// Another request of the same batch holds the slot.
		putResultBuffer(buf)
		return s.encodeToolResult(cc.v, res, nil)
	}
	*buf = s.encodeToolResult(cc.v, res, (*buf)[:0])
	return *buf
}

// encodeToolResult appends to b the CallToolResult of the structured result
// res, valid JSON that does not start with white space: res as a text block
// and, where the revision has them, as the structured content. A b too small
// is replaced by one of the exact size.
func (s *Server) encodeToolResult(v ver, res json.RawMessage, b []byte) []byte {
	structured := v.structured() && (res[0] == '{' || v.modern())
	// The text's escapes: valid JSON holds no control characters, and
	// encoding/json escapes U+2028 and U+2029, so quotes and backslashes are
	// all the text block adds (a hand-written result that holds more only
	// grows the buffer).
	n := len(`{"content":[{"type":"text","text":""}],"structuredContent":}`) + len(s.modernTail) +
		len(res) + bytes.Count(res, []byte{'"'}) + bytes.Count(res, []byte{'\\'})
	if structured {
		n += len(res)
	}
	if cap(b)-len(b) < n {
		b = append(make([]byte, 0, len(b)+n), b...)
	}
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = jsonenc.AppendString(b, res)
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
