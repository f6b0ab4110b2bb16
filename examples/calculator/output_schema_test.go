package main

import (
	"encoding/json"
	"testing"
)

// TestOutputSchemasDescribed checks that every property of every tool's
// output schema has a description, as the OpenRPC result has: a wrapped
// result's "result" property carries the doc comment's "result:" line.
func TestOutputSchemasDescribed(t *testing.T) {
	for _, tool := range CalculatorTools(&calculator{}) {
		if tool.OutputSchema == nil {
			continue
		}
		var s struct {
			Properties map[string]struct{ Description string }
		}
		if err := json.Unmarshal(tool.OutputSchema, &s); err != nil {
			t.Fatalf("tool %s: %v", tool.Name, err)
		}
		for name, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("tool %s: output property %q has no description", tool.Name, name)
			}
		}
	}
}
