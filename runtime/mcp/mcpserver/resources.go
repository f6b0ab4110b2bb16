package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// CodeResourceNotFound is the code legacy revisions give an unknown resource;
// 2026-07-28 uses -32602 instead.
const codeResourceNotFound = -32002

// ResourceNotFound returns the error a ResourceHandler returns when there is
// no resource at uri: a *runtime.Error with code -32002 and data {"uri": uri},
// which a 2026-07-28 request receives as -32602 (that revision has no
// -32002).
func ResourceNotFound(uri string) error {
	data := append(jsonenc.AppendString([]byte(`{"uri":`), uri), '}')
	return &runtime.Error{Code: codeResourceNotFound, Message: "Resource not found", Data: data}
}

// notFoundFor turns err, a ResourceNotFound error, into the one revision v
// answers with; other errors pass.
func notFoundFor(err *runtime.Error, v ver) *runtime.Error {
	if err.Code == codeResourceNotFound && v.modern() {
		e := *err
		e.Code = runtime.CodeInvalidParams
		return &e
	}
	return err
}

// resourceTemplate is a ResourceTemplate with its parsed template.
type resourceTemplate struct {
	ResourceTemplate
	tmpl *URITemplate
}

// AddResources adds fixed resources to the server; resources/list lists them
// in the order they were added. It panics on a programmer error: a URI that
// is empty, not absolute, already taken or (for file://) not clean, an empty
// Name, a nil Handler, or Annotations that are not a JSON object. Added after
// clients connected, they hear notifications/resources/list_changed.
func (s *Server) AddResources(rs ...Resource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.reg.Load()
	batch := make(map[string]bool, len(rs))
	for _, r := range rs {
		if err := checkURI(r.URI); err != nil {
			panic(fmt.Sprintf("mcp: resource URI %q: %s", r.URI, err.Message))
		}
		if clean, err := cleanFileURI(r.URI); err != nil || clean != r.URI {
			panic(fmt.Sprintf("mcp: resource URI %q is not a clean file URI", r.URI))
		}
		if batch[r.URI] || old.resource(r.URI) != nil {
			panic(fmt.Sprintf("mcp: duplicate resource URI %q", r.URI))
		}
		if r.Name == "" {
			panic(fmt.Sprintf("mcp: resource %q has no Name", r.URI))
		}
		if r.Handler == nil {
			panic(fmt.Sprintf("mcp: resource %q has no Handler", r.URI))
		}
		batch[r.URI] = true
	}
	added := make([]*Resource, len(rs))
	for i, r := range rs {
		r.Annotations = compactObject("resource "+r.URI, "Annotations", r.Annotations)
		r.Meta = checkDescriptor("resource "+r.URI, r.Icons, r.Meta)
		r.Icons = cloneIcons(r.Icons)
		added[i] = &r
	}
	reg := old.next()
	for _, r := range added {
		reg.resources = appendKeyed(reg.resources, reg.resIdx, r.URI, r)
	}
	s.reg.Store(reg.finish())
	if len(rs) > 0 {
		s.listChanged(mcp.NotificationResourcesListChanged, kindResources)
	}
}

// AddResourceTemplates adds resource templates to the server;
// resources/templates/list lists them in the order they were added, and a
// resources/read that no fixed resource answers tries them in that order. It
// panics on a programmer error: a template ParseURITemplate refuses or one
// already added, an empty Name, a nil Handler, or Annotations that are not
// a JSON object.
func (s *Server) AddResourceTemplates(ts ...ResourceTemplate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.reg.Load()
	batch := make(map[string]bool, len(ts))
	added := make([]*resourceTemplate, len(ts))
	for i, t := range ts {
		tmpl, err := ParseURITemplate(t.URITemplate)
		if err != nil {
			panic("mcp: " + err.Error())
		}
		if batch[t.URITemplate] || old.template(t.URITemplate) != nil {
			panic(fmt.Sprintf("mcp: duplicate resource template %q", t.URITemplate))
		}
		if t.Name == "" {
			panic(fmt.Sprintf("mcp: resource template %q has no Name", t.URITemplate))
		}
		if t.Handler == nil {
			panic(fmt.Sprintf("mcp: resource template %q has no Handler", t.URITemplate))
		}
		batch[t.URITemplate] = true
		t.Annotations = compactObject("resource template "+t.URITemplate, "Annotations", t.Annotations)
		t.Meta = checkDescriptor("resource template "+t.URITemplate, t.Icons, t.Meta)
		t.Icons = cloneIcons(t.Icons)
		added[i] = &resourceTemplate{ResourceTemplate: t, tmpl: tmpl}
	}
	reg := old.next()
	for _, t := range added {
		reg.templates = appendKeyed(reg.templates, reg.tmplIdx, t.URITemplate, t)
	}
	s.reg.Store(reg.finish())
	if len(ts) > 0 {
		s.listChanged(mcp.NotificationResourcesListChanged, kindResources)
	}
}

// compactObject compacts a raw JSON object, panicking when it is not one.
func compactObject(what, field string, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	defer func() {
		if recover() != nil {
			panic(fmt.Sprintf("mcp: %s: %s is not a JSON object", what, field))
		}
	}()
	return compactSchema(what, field, raw)
}

// listResources returns the pre-encoded resources/list page the cursor
// points at.
func (s *Server) listResources(v ver, cursor []byte) (json.RawMessage, error) {
	r := s.reg.Load()
	return listPage(s.encodedFor(r, v).resPages, resourcesCursor, s.opts.PageSize, len(r.resources), cursor)
}

// listResourceTemplates returns the pre-encoded resources/templates/list
// page the cursor points at.
func (s *Server) listResourceTemplates(v ver, cursor []byte) (json.RawMessage, error) {
	r := s.reg.Load()
	return listPage(s.encodedFor(r, v).tmplPages, templatesCursor, s.opts.PageSize, len(r.templates), cursor)
}

// resolve finds what answers a read of uri: a fixed resource, or else the
// first template matching it. uri has been checked and cleaned.
func (r *registry) resolve(uri string) (h ResourceHandler, vars map[string]string, ok bool) {
	if res := r.resource(uri); res != nil {
		return res.Handler, nil, true
	}
	for _, t := range r.templates {
		if vars, ok := t.tmpl.Match(uri); ok {
			return t.Handler, vars, true
		}
	}
	return nil, nil, false
}

// notText names the variable of the first template uri would match but for
// a value that does not decode to text, or returns "".
func (r *registry) notText(uri string) string {
	for _, t := range r.templates {
		if _, bad := t.tmpl.matchVars(uri); bad != "" {
			return bad
		}
	}
	return ""
}

// resourceURI reads, checks and cleans the "uri" member of params.
func resourceURI(raw []byte) (string, error) {
	if raw == nil {
		return "", runtime.InvalidParams(`missing "uri"`)
	}
	uri, ok := unquote(raw)
	if !ok {
		return "", runtime.InvalidParams(`"uri" must be a string`)
	}
	if err := checkURI(uri); err != nil {
		return "", err
	}
	clean, err := cleanFileURI(uri)
	if err != nil {
		return "", err
	}
	return clean, nil
}

// readCache are the cache fields of a 2026-07-28 resources/read result: a
// resource's contents may change at any time and may be the caller's own.
const readCache = `,"ttlMs":0,"cacheScope":"private"`

// readResource runs a resources/read. cc comes with the era's fields set.
func (ss *Session) readResource(ctx context.Context, cc *callCtx, p *reqParams) (json.RawMessage, error) {
	r := ss.srv.reg.Load()
	uri, err := resourceURI(p.uri)
	if err != nil {
		return nil, err
	}
	h, vars, ok := r.resolve(uri)
	if !ok {
		if name := r.notText(uri); name != "" {
			return nil, runtime.InvalidParams("uri %q: the value of {%s} decodes to a control character or invalid UTF-8", uri, name)
		}
		return nil, notFoundFor(ResourceNotFound(uri).(*runtime.Error), cc.v)
	}
	if err := ss.beginCall(ctx, cc, mcp.MethodResourcesRead, p); err != nil {
		return nil, err
	}
	contents, err := ss.runResource(cc, h, &ReadResourceRequest{URI: uri, Vars: vars})
	if cc.finish() {
		return nil, runtime.ErrNoResponse
	}
	if res, ok := cc.inputRequired(); ok {
		return res, nil
	}
	if err != nil {
		return nil, handlerError(err, cc.v)
	}
	if len(contents) == 0 {
		return nil, notFoundFor(ResourceNotFound(uri).(*runtime.Error), cc.v)
	}
	b := make([]byte, 0, 128+len(ss.srv.modernTail))
	b = append(b, `{"contents":[`...)
	for i := range contents {
		if i > 0 {
			b = append(b, ',')
		}
		c := contents[i]
		if c.URI == "" {
			c.URI = uri
		}
		b = appendResourceContents(b, c, cc.v)
	}
	b = append(b, ']')
	if cc.v.modern() {
		b = append(b, readCache...)
	}
	b = ss.srv.endResult(b, cc.v)
	if !json.Valid(b) {
		ss.logger.Error("mcp: resource handler returned contents with an invalid _meta", "uri", uri)
		return nil, &runtime.Error{Code: runtime.CodeInternalError, Message: "internal error reading " + uri}
	}
	return b, nil
}

// runResource calls a resource handler, turning a panic into an internal
// error.
func (ss *Session) runResource(cc *callCtx, h ResourceHandler, req *ReadResourceRequest) (c []mcp.ResourceContents, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.logger.Error("mcp: resource handler panicked", "uri", req.URI, "panic", v, "stack", string(debug.Stack()))
			c, err = nil, errors.New("internal error reading "+req.URI)
		}
	}()
	return h(cc, req)
}

// handlerError is the protocol error a resource, prompt or completion
// handler's error becomes: a *runtime.Error as it is (ResourceNotFound as
// revision v has it), anything else an internal error carrying its text.
func handlerError(err error, v ver) error {
	var re *runtime.Error
	if errors.As(err, &re) && re != nil {
		return notFoundFor(re, v)
	}
	return &runtime.Error{Code: runtime.CodeInternalError, Message: err.Error()}
}

// appendResource appends the descriptor of r as revision v lists it.
func appendResource(b []byte, r *Resource, v ver) []byte {
	b = append(b, `{"uri":`...)
	b = jsonenc.AppendString(b, r.URI)
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, r.Name)
	b = appendDescribed(b, r.Title, r.Description, r.MIMEType, v)
	if r.Size > 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, r.Size, 10)
	}
	if r.Annotations != nil {
		b = append(b, `,"annotations":`...)
		b = append(b, r.Annotations...)
	}
	b = appendIcons(b, r.Icons, v)
	b = appendDescriptorMeta(b, r.Meta, "", v)
	return append(b, '}')
}

// appendTemplate appends the descriptor of t as revision v lists it.
func appendTemplate(b []byte, t *resourceTemplate, v ver) []byte {
	b = append(b, `{"uriTemplate":`...)
	b = jsonenc.AppendString(b, t.URITemplate)
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, t.Name)
	b = appendDescribed(b, t.Title, t.Description, t.MIMEType, v)
	if t.Annotations != nil {
		b = append(b, `,"annotations":`...)
		b = append(b, t.Annotations...)
	}
	b = appendIcons(b, t.Icons, v)
	b = appendDescriptorMeta(b, t.Meta, "", v)
	return append(b, '}')
}

// appendDescribed appends the title (from 2025-06-18), description and
// mimeType members that are set.
func appendDescribed(b []byte, title, description, mimeType string, v ver) []byte {
	if title != "" && v.structured() {
		b = append(b, `,"title":`...)
		b = jsonenc.AppendString(b, title)
	}
	if description != "" {
		b = append(b, `,"description":`...)
		b = jsonenc.AppendString(b, description)
	}
	if mimeType != "" {
		b = append(b, `,"mimeType":`...)
		b = jsonenc.AppendString(b, mimeType)
	}
	return b
}
