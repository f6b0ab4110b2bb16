// Package contract holds what a client of a generated service relies on (a
// contract snapshot: JSON-RPC methods with their params, results and
// errors, MCP tools, resources and prompts, and the generated Go API) and
// compares two of them, reporting each change that would break an existing
// client by rule, and the additive ones as safe. It reads snapshots rpcgen
// wrote and OpenRPC documents; the generator builds the current snapshot.
package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Version is the format version a snapshot states in its "contract" member.
const Version = 1

// Snapshot is the contract of the services of one generated file. Its JSON
// form (Marshal) is stable: members sorted by name, lists in source order.
type Snapshot struct {
	Contract int `json:"contract"`
	// Services are the interfaces, with the position of each and the rules
	// their //rpcgen:breaking directives ignore.
	Services []*Service `json:"services,omitempty"`
	Methods  []*Method  `json:"methods"`
	// Components are the shared JSON Schemas the methods' "$ref"s
	// ("#/components/schemas/NAME") point at.
	Components map[string]json.RawMessage `json:"components,omitempty"`
	Tools      []*Tool                    `json:"tools,omitempty"`
	Resources  []*Resource                `json:"resources,omitempty"`
	Prompts    []*Prompt                  `json:"prompts,omitempty"`
	// Go is the exported API of the generated Go file, one declaration
	// each; nil when the snapshot came from an OpenRPC document.
	Go []*GoDecl `json:"go,omitempty"`
	// FromOpenRPC says the snapshot was read from an OpenRPC document,
	// which holds no MCP or Go facts: those rules are not checked.
	FromOpenRPC bool `json:"-"`
}

// Service is one interface.
type Service struct {
	Name   string   `json:"name"`
	Pos    string   `json:"pos,omitempty"`
	Ignore []string `json:"ignore,omitempty"`
}

// Method is one JSON-RPC method.
type Method struct {
	Name string `json:"name"` // the JSON-RPC name, e.g. "calculator.add"
	// GoName is Interface.Method, e.g. "Calculator.Add".
	GoName       string `json:"go,omitempty"`
	Notification bool   `json:"notification,omitempty"`
	// ParamStructure is OpenRPC's: "by-name" or "either".
	ParamStructure string   `json:"paramStructure,omitempty"`
	Params         []*Param `json:"params"`
	// Result is the result's schema; nil for a notification.
	Result json.RawMessage `json:"result,omitempty"`
	Errors []*Error        `json:"errors,omitempty"`
	Pos    string          `json:"pos,omitempty"`
	Ignore []string        `json:"ignore,omitempty"`
}

// Param is one param of a method.
type Param struct {
	Name     string          `json:"name"`
	Required bool            `json:"required,omitempty"`
	Schema   json.RawMessage `json:"schema"`
}

// Error is a declared error: its name and code.
type Error struct {
	Name string `json:"name"`
	Code int    `json:"code"`
}

// Tool is one MCP tool.
type Tool struct {
	Name         string          `json:"name"`
	Method       string          `json:"method,omitempty"` // the JSON-RPC method it calls
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Hints are the annotations' hints that are set, by wire name.
	Hints  map[string]bool `json:"hints,omitempty"`
	Scopes []string        `json:"scopes,omitempty"`
	Digest string          `json:"digest,omitempty"`
	// Icons and Meta are the descriptor's icons (a JSON array) and _meta
	// (a JSON object), nil when it has none.
	Icons json.RawMessage `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// Resource is an MCP resource or resource template.
type Resource struct {
	Name     string `json:"name"`
	URI      string `json:"uri"` // the URI, or the URI template
	Template bool   `json:"template,omitempty"`
	Method   string `json:"method,omitempty"`
	// Title, Icons and Meta are what hosts show, as for Tool.
	Title string          `json:"title,omitempty"`
	Icons json.RawMessage `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// Prompt is an MCP prompt.
type Prompt struct {
	Name      string       `json:"name"`
	Arguments []*PromptArg `json:"arguments,omitempty"`
	Method    string       `json:"method,omitempty"`
	// Title, Icons and Meta are what hosts show, as for Tool.
	Title string          `json:"title,omitempty"`
	Icons json.RawMessage `json:"icons,omitempty"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// PromptArg is an argument of a prompt.
type PromptArg struct {
	Name     string `json:"name"`
	Required bool   `json:"required,omitempty"`
}

// GoDecl is one exported declaration of the generated Go file: Name is
// "X" or "Recv.X" for a method, Decl its declaration without body.
type GoDecl struct {
	Name string `json:"name"`
	Decl string `json:"decl"`
}

// Marshal is the snapshot as an indented JSON document ending in a
// newline. Positions are left out unless withPos: a snapshot committed as
// a baseline should not change when a line moves.
func (s *Snapshot) Marshal(withPos bool) ([]byte, error) {
	c := *s
	c.Contract = Version
	if !withPos {
		c.Services = slices.Clone(s.Services)
		for i, sv := range c.Services {
			cp := *sv
			cp.Pos = ""
			c.Services[i] = &cp
		}
		c.Methods = slices.Clone(s.Methods)
		for i, m := range c.Methods {
			cp := *m
			cp.Pos = ""
			c.Methods[i] = &cp
		}
	}
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Read reads a snapshot rpcgen wrote, or an OpenRPC document (one with an
// "openrpc" member), from data.
func Read(data []byte) (*Snapshot, error) {
	var probe struct {
		Contract *int            `json:"contract"`
		OpenRPC  json.RawMessage `json:"openrpc"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("not a contract snapshot or an OpenRPC document: %w", err)
	}
	switch {
	case probe.OpenRPC != nil:
		return FromOpenRPC(data)
	case probe.Contract == nil:
		return nil, fmt.Errorf("not a contract snapshot (no \"contract\" member) or an OpenRPC document (no \"openrpc\" member)")
	case *probe.Contract != Version:
		return nil, fmt.Errorf("contract snapshot format %d; this rpcgen reads format %d", *probe.Contract, Version)
	}
	var s Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("contract snapshot: %w", err)
	}
	return &s, nil
}

// FromOpenRPC reads the methods of an OpenRPC document: their params,
// results (none marks a notification, as rpcgen writes them) and the
// errors with names and codes, and the schemas under components.
func FromOpenRPC(data []byte) (*Snapshot, error) {
	var doc struct {
		Methods []struct {
			Name           string `json:"name"`
			ParamStructure string `json:"paramStructure"`
			Params         []struct {
				Name     string          `json:"name"`
				Required bool            `json:"required"`
				Schema   json.RawMessage `json:"schema"`
			} `json:"params"`
			Result *struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"result"`
			Errors []struct {
				Ref     string `json:"$ref"`
				Code    *int   `json:"code"`
				Message string `json:"message"`
			} `json:"errors"`
		} `json:"methods"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
			Errors  map[string]struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"errors"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("OpenRPC document: %w", err)
	}
	s := &Snapshot{Contract: Version, Components: doc.Components.Schemas, FromOpenRPC: true}
	for _, dm := range doc.Methods {
		m := &Method{Name: dm.Name, ParamStructure: dm.ParamStructure, Params: []*Param{}}
		for _, p := range dm.Params {
			m.Params = append(m.Params, &Param{Name: p.Name, Required: p.Required, Schema: p.Schema})
		}
		if dm.Result == nil {
			m.Notification = true
		} else {
			m.Result = dm.Result.Schema
		}
		for _, e := range dm.Errors {
			name, code := e.Message, 0
			if e.Code != nil {
				code = *e.Code
			}
			if ref, ok := strings.CutPrefix(e.Ref, "#/components/errors/"); ok {
				ce, found := doc.Components.Errors[ref]
				if !found {
					return nil, fmt.Errorf("OpenRPC document: method %s: error %s is not under components/errors", dm.Name, e.Ref)
				}
				name, code = ref, ce.Code
			}
			m.Errors = append(m.Errors, &Error{Name: name, Code: code})
		}
		s.Methods = append(s.Methods, m)
	}
	return s, nil
}
