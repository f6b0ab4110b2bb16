package schema

import (
	"embed"
	"encoding/json"
	"fmt"
	"go/types"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// The types of package mcp that travel as MCP defines them rather than as
// their Go fields say (Content has a MarshalJSON of its own) get the
// schemas MCP's specification gives them, written once in mcpschemas/: a
// content block is a union discriminated by "type", a resource's contents
// are text or a blob. "$ref": "#/$defs/NAME" in a file stands for the
// schema of mcpschemas/NAME.json, inlined, as the builder inlines every
// named type; the API documents make components of them again.

//go:embed mcpschemas/*.json
var mcpSchemaFiles embed.FS

// mcpSchemaNames are the types of package mcp with a schema of their own.
var mcpSchemaNames = map[string]bool{"Content": true, "ResourceContents": true, "PromptMessage": true, "CallToolResult": true}

// MCPTitles are the titles of the parts of those schemas that a TypeScript
// client declares as types of their own: the variants of the unions, and
// the annotations every content block may carry.
var MCPTitles = map[string]bool{
	"TextContent": true, "ImageContent": true, "AudioContent": true, "ResourceLink": true,
	"EmbeddedResource": true, "TextResourceContents": true, "BlobResourceContents": true,
	"Annotations": true,
}

// MCPParts returns the types of package mcp with a schema of their own that
// the schema of n, one itself, holds: ResourceContents in Content, Content
// in PromptMessage and CallToolResult.
func MCPParts(n *types.Named) []*types.Named {
	var names []string
	switch n.Obj().Name() {
	case "Content":
		names = []string{"ResourceContents"}
	case "PromptMessage", "CallToolResult":
		names = []string{"Content"}
	}
	var parts []*types.Named
	for _, name := range names {
		if tn, ok := n.Obj().Pkg().Scope().Lookup(name).(*types.TypeName); ok {
			if p, ok := tn.Type().(*types.Named); ok {
				parts = append(parts, p)
			}
		}
	}
	return parts
}

// HasMCPSchema reports whether n is a type of package mcp with a schema of
// its own, which the API documents make a component of.
func HasMCPSchema(n *types.Named) bool {
	return model.PkgPath(n) == model.MCPPath && mcpSchemaNames[n.Obj().Name()]
}

// mcpSchema returns the schema of the mcp type name, nil for a type that has
// none; a copy, the caller's to change.
func mcpSchema(name string) *jsonschema.Schema {
	if !mcpSchemaNames[name] {
		return nil
	}
	s, err := loadMCPSchema(name, 0)
	if err != nil {
		panic(err) // the files are part of rpcgen; TestMCPSchemas reads them all
	}
	return s
}

func loadMCPSchema(name string, depth int) (*jsonschema.Schema, error) {
	if depth > 4 {
		return nil, fmt.Errorf("mcpschemas: %s: references nest too deep", name)
	}
	data, err := mcpSchemaFiles.ReadFile("mcpschemas/" + name + ".json")
	if err != nil {
		return nil, err
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("mcpschemas/%s.json: %w", name, err)
	}
	var resolve func(*jsonschema.Schema) (*jsonschema.Schema, error)
	resolve = func(x *jsonschema.Schema) (*jsonschema.Schema, error) {
		if x == nil {
			return nil, nil
		}
		if ref, ok := strings.CutPrefix(x.Ref, "#/$defs/"); ok {
			return loadMCPSchema(ref, depth+1)
		}
		var err error
		each := func(l []*jsonschema.Schema) {
			for i := range l {
				if err == nil {
					l[i], err = resolve(l[i])
				}
			}
		}
		each(x.OneOf)
		if x.Items != nil && err == nil {
			x.Items, err = resolve(x.Items)
		}
		if x.Properties != nil {
			for p := x.Properties.Oldest(); p != nil && err == nil; p = p.Next() {
				p.Value, err = resolve(p.Value)
			}
		}
		return x, err
	}
	return resolve(s)
}
