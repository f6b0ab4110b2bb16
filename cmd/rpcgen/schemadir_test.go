package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSchemaDir(t *testing.T) {
	dir := newPackage(t, calcSrc)
	if code, _, stderr := runIn(t, dir, "--schema-dir", "schemas", "Calculator"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	params, err := os.ReadFile(filepath.Join(dir, "schemas", "calculator.add.params.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Schema     string                     `json:"$schema"`
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatalf("params schema is not JSON: %v\n%s", err, params)
	}
	if p.Schema != "https://json-schema.org/draft/2020-12/schema" || p.Type != "object" ||
		len(p.Properties) != 2 || strings.Join(p.Required, ",") != "a,b" {
		t.Errorf("params schema:\n%s", params)
	}
	if !strings.HasSuffix(string(params), "}\n") || !strings.Contains(string(params), "\n  \"type\": \"object\"") {
		t.Errorf("params schema is not indented with a final newline:\n%s", params)
	}
	result, err := os.ReadFile(filepath.Join(dir, "schemas", "calculator.add.result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(result), `"type": "integer"`) {
		t.Errorf("result schema:\n%s", result)
	}

	// --check covers the schema files too.
	if code, stdout, stderr := runIn(t, dir, "--check", "--schema-dir", "schemas", "Calculator"); code != exitOK || stdout != "" {
		t.Fatalf("fresh output: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	write(t, filepath.Join(dir, "calc.go"), strings.Replace(calcSrc, "a, b int", "a, b int8", 1))
	code, stdout, stderr := runIn(t, dir, "--check", "--schema-dir", "schemas", "Calculator")
	if code != exitFail || !strings.Contains(stderr, "schemas/calculator.add.params.schema.json is stale") ||
		!strings.Contains(stdout, `+      "maximum": 127`) {
		t.Fatalf("stale schema: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}
