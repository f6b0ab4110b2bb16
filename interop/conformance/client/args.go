package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// toolCalls returns the calls the scenario's context names
// (MCP_CONFORMANCE_CONTEXT {"toolCalls":[{"name":…,"arguments":{…}}]}): a
// scenario that cares which values reach the server says so there.
func toolCalls() (map[string]json.RawMessage, error) {
	raw := os.Getenv("MCP_CONFORMANCE_CONTEXT")
	if raw == "" {
		return nil, nil
	}
	var ctx struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(raw), &ctx); err != nil {
		return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %v", err)
	}
	calls := make(map[string]json.RawMessage, len(ctx.ToolCalls))
	for _, c := range ctx.ToolCalls {
		calls[c.Name] = c.Arguments
	}
	return calls, nil
}

// schema is the part of a JSON Schema sampleValue reads.
type schema struct {
	Type       json.RawMessage    `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Default    json.RawMessage    `json:"default"`
	Enum       []json.RawMessage  `json:"enum"`
	Const      json.RawMessage    `json:"const"`
}

// sampleArguments returns arguments for a tool with the given input schema,
// as a model filling in the required fields would: each required property's
// default, const or first enum value, else a value of its type.
func sampleArguments(inputSchema json.RawMessage) (map[string]any, error) {
	var s schema
	if len(inputSchema) > 0 {
		if err := json.Unmarshal(inputSchema, &s); err != nil {
			return nil, fmt.Errorf("input schema: %v", err)
		}
	}
	args := map[string]any{}
	for i, name := range s.Required {
		args[name] = sampleValue(s.Properties[name], i)
	}
	return args, nil
}

func sampleValue(s *schema, i int) any {
	switch {
	case s == nil:
		return "conformance"
	case s.Default != nil:
		return s.Default
	case s.Const != nil:
		return s.Const
	case len(s.Enum) > 0:
		return s.Enum[0]
	}
	var typ string
	if json.Unmarshal(s.Type, &typ) != nil {
		var types []string
		if json.Unmarshal(s.Type, &types) == nil && len(types) > 0 {
			typ = types[0]
		}
	}
	switch typ {
	case "integer", "number":
		return i + 2
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		obj := map[string]any{}
		for j, name := range s.Required {
			obj[name] = sampleValue(s.Properties[name], j)
		}
		return obj
	case "null":
		return nil
	}
	return "conformance"
}
