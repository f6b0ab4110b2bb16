package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// AddPrompts adds prompts to the server; prompts/list lists them in the
// order they were added. It panics on a programmer error: an empty or
// already taken Name, a nil Handler, or an argument with no name or a name
// used twice. Added after clients connected, they hear
// notifications/prompts/list_changed.
func (s *Server) AddPrompts(ps ...Prompt) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.reg.Load()
	batch := make(map[string]bool, len(ps))
	for _, p := range ps {
		if p.Name == "" {
			panic("mcp: prompt with no Name")
		}
		if batch[p.Name] || old.prompt(p.Name) != nil {
			panic(fmt.Sprintf("mcp: duplicate prompt name %q", p.Name))
		}
		if p.Handler == nil {
			panic(fmt.Sprintf("mcp: prompt %q has no Handler", p.Name))
		}
		args := make(map[string]bool, len(p.Arguments))
		for _, a := range p.Arguments {
			if a.Name == "" {
				panic(fmt.Sprintf("mcp: prompt %q has an argument with no Name", p.Name))
			}
			if args[a.Name] {
				panic(fmt.Sprintf("mcp: prompt %q has two arguments named %q", p.Name, a.Name))
			}
			args[a.Name] = true
		}
		batch[p.Name] = true
	}
	r := old.next()
	for _, p := range ps {
		p.Arguments = append([]mcp.PromptArgument(nil), p.Arguments...)
		p.Meta = checkDescriptor(fmt.Sprintf("prompt %q", p.Name), p.Icons, p.Meta)
		p.Icons = cloneIcons(p.Icons)
		r.prompts = appendKeyed(r.prompts, r.promptIdx, p.Name, &p)
	}
	s.reg.Store(r.finish())
	if len(ps) > 0 {
		s.listChanged(mcp.NotificationPromptsListChanged, kindPrompts)
	}
}

// listPrompts returns the pre-encoded prompts/list page the cursor points at.
func (s *Server) listPrompts(v ver, cursor []byte) (json.RawMessage, error) {
	r := s.reg.Load()
	return listPage(s.encodedFor(r, v).promptPages, promptsCursor, s.opts.PageSize, len(r.prompts), cursor)
}

// lookupPrompt finds the prompt a raw JSON name names.
func (r *registry) lookupPrompt(name []byte) (*Prompt, error) {
	if name == nil {
		return nil, runtime.InvalidParams(`missing "name"`)
	}
	s, ok := unquote(name)
	if !ok {
		return nil, runtime.InvalidParams(`"name" must be a string`)
	}
	if p := r.prompt(s); p != nil {
		return p, nil
	}
	return nil, runtime.InvalidParams("unknown prompt %s", name)
}

// stringMap decodes a raw JSON object of strings; null or absent is nil.
func stringMap(raw []byte, member string) (map[string]string, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]string
	if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
		return nil, runtime.InvalidParams("%q must be an object of strings", member)
	}
	return m, nil
}

// getPrompt runs a prompts/get. cc comes with the era's fields set.
func (ss *Session) getPrompt(ctx context.Context, cc *callCtx, p *reqParams) (json.RawMessage, error) {
	pr, err := ss.srv.reg.Load().lookupPrompt(p.name)
	if err != nil {
		return nil, err
	}
	args, err := stringMap(p.arguments, "arguments")
	if err != nil {
		return nil, err
	}
	for _, a := range pr.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return nil, runtime.InvalidParams("prompt %q: missing required argument %q", pr.Name, a.Name)
		}
	}
	if args == nil {
		args = map[string]string{}
	}
	if err := ss.beginCall(ctx, cc, mcp.MethodPromptsGet, p); err != nil {
		return nil, err
	}
	res, err := ss.runPrompt(cc, pr, args)
	if cc.finish() {
		return nil, runtime.ErrNoResponse
	}
	if r, ok := cc.inputRequired(); ok {
		return r, nil
	}
	if err != nil {
		return nil, handlerError(err, cc.v)
	}
	if res == nil {
		ss.logger.Error("mcp: prompt handler returned no result", "prompt", pr.Name)
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "prompt " + pr.Name + " returned no result"}
	}
	if len(res.Meta) > 0 && (!isObject(res.Meta) || !json.Valid(res.Meta)) {
		ss.logger.Error("mcp: prompt result _meta is not a JSON object", "prompt", pr.Name)
		res.Meta = nil
	}
	b := ss.srv.encodePromptResult(res, cc.v)
	if !json.Valid(b) {
		ss.logger.Error("mcp: prompt handler returned a message with invalid JSON members", "prompt", pr.Name)
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "internal error in prompt " + pr.Name}
	}
	return b, nil
}

// runPrompt calls a prompt's handler, turning a panic into an internal
// error.
func (ss *Session) runPrompt(cc *callCtx, pr *Prompt, args map[string]string) (res *mcp.GetPromptResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.logger.Error("mcp: prompt handler panicked", "prompt", pr.Name, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, errors.New("internal error in prompt "+pr.Name)
		}
	}()
	return pr.Handler(cc, args)
}

// encodePromptResult encodes a GetPromptResult as revision v knows it.
func (s *Server) encodePromptResult(res *mcp.GetPromptResult, v ver) []byte {
	b := make([]byte, 0, 256+len(s.modernTail))
	b = append(b, '{')
	if res.Description != "" {
		b = append(b, `"description":`...)
		b = jsonenc.AppendString(b, res.Description)
		b = append(b, ',')
	}
	b = append(b, `"messages":[`...)
	for i, m := range res.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b = jsonenc.AppendString(b, m.Role)
		b = append(b, `,"content":`...)
		b = appendContent(b, m.Content, v)
		b = append(b, '}')
	}
	b = append(b, ']')
	return s.endResultMeta(b, v, res.Meta)
}

// appendPrompt appends the descriptor of p as revision v lists it.
func appendPrompt(b []byte, p *Prompt, v ver) []byte {
	b = append(b, `{"name":`...)
	b = jsonenc.AppendString(b, p.Name)
	b = appendDescribed(b, p.Title, p.Description, "", v)
	if len(p.Arguments) > 0 {
		b = append(b, `,"arguments":[`...)
		for i, a := range p.Arguments {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsonenc.AppendString(b, a.Name)
			b = appendDescribed(b, a.Title, a.Description, "", v)
			if a.Required {
				b = append(b, `,"required":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = appendIcons(b, p.Icons, v)
	b = appendDescriptorMeta(b, p.Meta, "", v)
	return append(b, '}')
}
