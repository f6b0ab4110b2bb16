package model

import (
	"bytes"
	"encoding/json"
	"go/token"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Extension says a service is an MCP extension (SEP-2133), from
// //rpcgen:extension id=... on its interface: its methods are requests of
// the extension, which a server serves (mcpserver.Server.AddExtension) and
// a client calls (mcpclient.Client.CallExtension) once both declared the
// extension, rather than MCP tools.
type Extension struct {
	// ID is the extension's identifier, such as "com.example/search".
	ID string
	// Settings is the compact JSON object the server declares as the
	// extension's settings; nil for none ({}).
	Settings []byte
	Pos      token.Position
}

// separator joins the service part and the method part of a method name:
// "." for JSON-RPC (calculator.add), "/" for an MCP extension
// (search/query, as the official extensions name theirs: skills/list,
// tasks/get).
func (s *Service) separator() string {
	if s.Extension != nil {
		return "/"
	}
	return "."
}

// buildExtension reads //rpcgen:extension; svc is the service's
// //rpcgen:service, whose name=, when given, replaces the extension's name
// as the first part of the method names.
func buildExtension(s *Service, d, svc *Directive, errs *diag.Collector) *Extension {
	if d == nil {
		return nil
	}
	id, pos, ok := d.value("id")
	valid := ok
	if !ok {
		errs.At(d.Pos, "//rpcgen:extension needs id=: the extension's identifier, {vendor-prefix}/{extension-name} such as com.example/search")
	} else if err := mcp.CheckExtensionID(id); err != nil {
		errs.At(pos, "//rpcgen:extension: %v", err)
		valid = false
	}
	x := &Extension{ID: id, Pos: errs.Fset.Position(d.Pos)}
	if v, vpos, ok := d.value("settings"); ok {
		var buf bytes.Buffer
		switch err := json.Compact(&buf, []byte(v)); {
		case err != nil:
			errs.At(vpos, "//rpcgen:extension settings: %v (write the JSON object in backquotes)", err)
		case buf.Len() == 0 || buf.Bytes()[0] != '{':
			errs.At(vpos, "//rpcgen:extension settings must be a JSON object, not %s", v)
		default:
			x.Settings = buf.Bytes()
		}
	}
	for _, key := range []string{"toolprefix", "scopes"} {
		if _, kpos, ok := svc.value(key); ok {
			errs.At(kpos, "//rpcgen:service %s= does not apply to an extension, whose methods are not MCP tools", key)
		}
	}
	if !valid {
		return nil
	}
	if _, _, named := svc.value("name"); !named {
		_, s.RPCName, _ = strings.Cut(id, "/")
	}
	return x
}

// checkExtensionMethod holds a method of an extension to what the runtime
// serves: a request (not a notification, not a stream) whose name is free
// for an extension, and not an MCP tool, resource, prompt or completion.
func checkExtensionMethod(m *Method, dirs map[string]*Directive, errs *diag.Collector) {
	m.Tool = nil
	for _, name := range append([]string{"tool"}, featureDirectives...) {
		if d := dirs[name]; d != nil {
			errs.At(d.Pos, "method %s: //rpcgen:%s does not apply to a method of an extension, which is an MCP request of its own, not a tool, resource or prompt", m.Name, name)
		}
	}
	switch {
	case m.Notification:
		errs.AtPosition(m.Pos, "method %s: an extension's notifications are not generated; make it a request (it may return only error)", m.Name)
	case m.Stream:
		errs.AtPosition(m.Pos, "method %s: a method of an extension cannot return a stream; return its whole result", m.Name)
	case m.Content != ContentNone:
		errs.AtPosition(m.Pos, "method %s: a method of an extension returns data, not MCP tool content", m.Name)
	}
	if err := mcp.CheckExtensionMethod(m.RPCName, false); err != nil {
		pos := m.Pos
		if d := dirs["method"]; d != nil {
			if _, npos, ok := d.value("name"); ok {
				pos = errs.Fset.Position(npos)
			}
		}
		errs.AtPosition(pos, "method %s: %v; an extension's method needs a name of its own (//rpcgen:method name=...)", m.Name, err)
	}
}
