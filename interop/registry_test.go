package interop

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// registrySchema compiles the schema in testdata/registry/file at ref (""
// for its root), with formats asserted as the registry's validator does.
func registrySchema(t *testing.T, file, ref string) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "registry", file))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "file:///registry/" + file
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url + ref)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// goldenOutputs are the want/ files of a golden case of the generator.
func goldenOutputs(t *testing.T, name string) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "golden", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	parts := strings.Split("\n"+string(b), "\n-- ")
	for _, p := range parts[1:] {
		head, body, ok := strings.Cut(p, " --\n")
		if ok && strings.HasPrefix(head, "want/") {
			files[strings.TrimPrefix(head, "want/")] = []byte(body)
		}
	}
	return files
}

func instance(t *testing.T, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestServerJSONSchema: the server.json and the Server Card rpcgen writes
// (the generator's golden case server_json, every flag used) are valid
// against the MCP registry's published schema 2025-12-11 and the Server
// Card draft's schema; and the same documents broken as the registry
// refuses (no name, a description over 100 characters, a version "latest"
// of a package, a remote that is not a URL) are not, so the validation is
// live.
func TestServerJSONSchema(t *testing.T) {
	out := goldenOutputs(t, "server_json")
	for _, tc := range []struct {
		file, schema, ref string
		breaks            []func(map[string]any)
	}{
		{"server.json", "server.schema.json", "", []func(map[string]any){
			func(d map[string]any) { delete(d, "name") },
			func(d map[string]any) { d["description"] = strings.Repeat("d", 101) },
			func(d map[string]any) { d["packages"].([]any)[1].(map[string]any)["version"] = "latest" },
			func(d map[string]any) { d["remotes"].([]any)[0].(map[string]any)["url"] = "notes.example.com/mcp" },
		}},
		{"card.json", "server-card.schema.json", "#/$defs/ServerCard", []func(map[string]any){
			func(d map[string]any) { delete(d, "$schema") },
			func(d map[string]any) { d["name"] = "notes" },
			func(d map[string]any) { d["remotes"].([]any)[0].(map[string]any)["type"] = "stdio" },
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc, ok := out[tc.file]
			if !ok {
				t.Fatalf("golden case server_json has no want/%s", tc.file)
			}
			s := registrySchema(t, tc.schema, tc.ref)
			if err := s.Validate(instance(t, doc)); err != nil {
				t.Fatalf("%s is not valid against %s: %v\n%s", tc.file, tc.schema, err, doc)
			}
			for i, brk := range tc.breaks {
				var d map[string]any
				if err := json.Unmarshal(doc, &d); err != nil {
					t.Fatal(err)
				}
				brk(d)
				b, _ := json.Marshal(d)
				if err := s.Validate(instance(t, b)); err == nil {
					t.Errorf("broken copy %d of %s is valid against %s: %s", i, tc.file, tc.schema, b)
				}
			}
		})
	}
}
