package canon

import (
	"encoding/json"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// Tool is an MCP tool descriptor as tools/list sends it in 2025-11-25 and
// later, less its _meta (where rpcgen carries the digest itself); before
// 2025-11-25 it has no icons.
type Tool struct {
	Name, Title, Description  string
	InputSchema, OutputSchema json.RawMessage // OutputSchema nil when there is none
	// Hints are the annotations' hints that are set, by their wire names
	// (readOnlyHint, destructiveHint, idempotentHint, openWorldHint).
	Hints map[string]bool
	// Icons are the tool's icons (2025-11-25), nil for none.
	Icons []mcp.Icon
}

// JSON is the descriptor as a JSON object, with the members tools/list
// writes: name, and title, description, inputSchema, outputSchema and
// annotations when they are set.
func (t *Tool) JSON() ([]byte, error) {
	obj := map[string]any{"name": t.Name}
	if t.Title != "" {
		obj["title"] = t.Title
	}
	if t.Description != "" {
		obj["description"] = t.Description
	}
	obj["inputSchema"] = json.RawMessage(t.InputSchema)
	if t.OutputSchema != nil {
		obj["outputSchema"] = json.RawMessage(t.OutputSchema)
	}
	if len(t.Hints) > 0 {
		obj["annotations"] = t.Hints
	}
	if len(t.Icons) > 0 {
		obj["icons"] = t.Icons
	}
	return json.Marshal(obj)
}

// Digest is the tool's digest: Digest over the canonical JSON of the
// descriptor (see Tool), and that JSON's length in bytes, the size a tool
// manifest pairs with it.
func (t *Tool) Digest() (digest string, size int, err error) {
	raw, err := t.JSON()
	if err != nil {
		return "", 0, fmt.Errorf("tool %s: %w", t.Name, err)
	}
	c, err := JSON(raw)
	if err != nil {
		return "", 0, fmt.Errorf("tool %s: %w", t.Name, err)
	}
	return Digest(c), len(c), nil
}
