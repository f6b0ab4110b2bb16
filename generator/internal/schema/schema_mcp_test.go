package schema

import (
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/metaschema"
)

// TestMCPSchemas reads every schema of mcpschemas/ and checks it against
// draft 2020-12's meta-schema, with nothing left to resolve.
func TestMCPSchemas(t *testing.T) {
	for name := range mcpSchemaNames {
		s := mcpSchema(name)
		text := Marshal(s)
		if strings.Contains(string(text), `"$ref"`) {
			t.Errorf("%s: a reference is left: %s", name, text)
		}
		root, err := metaschema.Parse(text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if problems := metaschema.Check(root); len(problems) > 0 {
			t.Errorf("%s: %v", name, problems)
		}
		if s.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}
	if c := mcpSchema("Content"); len(c.OneOf) != 5 {
		t.Errorf("Content has %d variants, want 5", len(c.OneOf))
	}
	if mcpSchema("Tool") != nil {
		t.Error("mcpSchema(Tool) is not nil")
	}
}
