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

// registryDocs are the server.json and Server Card documents rpcgen wrote
// that this test checks: the want/server.json and want/card.json of every
// golden case of the generator (server_json, every flag used;
// server_json_directives, packages and environment variables from
// directives), and every server.json or *.card.json committed under
// examples/, keyed by where they are.
func registryDocs(t *testing.T) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	cases, err := filepath.Glob(filepath.Join("..", "testdata", "golden", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		name := strings.TrimSuffix(filepath.Base(c), ".txtar")
		if strings.HasPrefix(name, "err_") {
			continue
		}
		for file, b := range goldenOutputs(t, name) {
			if file == "server.json" || file == "card.json" {
				docs[name+"/"+file] = b
			}
		}
	}
	err = filepath.WalkDir(filepath.Join("..", "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if !d.IsDir() && (d.Name() == "server.json" || strings.HasSuffix(d.Name(), ".card.json")) {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			docs[filepath.ToSlash(path)] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// TestServerJSONSchema: every server.json and Server Card rpcgen writes in
// this repository (registryDocs) is valid against the MCP registry's
// published schema 2025-12-11 or the Server Card draft's schema; and the
// golden case server_json's documents broken as the registry refuses (no
// name, a description over 100 characters, a version "latest" of a
// package, a remote that is not a URL) are not, so the validation is live.
func TestServerJSONSchema(t *testing.T) {
	docs := registryDocs(t)
	for _, want := range []string{"server_json/server.json", "server_json/card.json", "server_json_directives/server.json"} {
		if _, ok := docs[want]; !ok {
			t.Errorf("no golden want/ file %s", want)
		}
	}
	schemas := map[string]struct{ schema, ref string }{
		"server.json": {"server.schema.json", ""},
		"card.json":   {"server-card.schema.json", "#/$defs/ServerCard"},
	}
	breaks := map[string][]func(map[string]any){
		"server_json/server.json": {
			func(d map[string]any) { delete(d, "name") },
			func(d map[string]any) { d["description"] = strings.Repeat("d", 101) },
			func(d map[string]any) { d["packages"].([]any)[1].(map[string]any)["version"] = "latest" },
			func(d map[string]any) { d["remotes"].([]any)[0].(map[string]any)["url"] = "notes.example.com/mcp" },
		},
		"server_json/card.json": {
			func(d map[string]any) { delete(d, "$schema") },
			func(d map[string]any) { d["name"] = "notes" },
			func(d map[string]any) { d["remotes"].([]any)[0].(map[string]any)["type"] = "stdio" },
		},
		"server_json_directives/server.json": {
			func(d map[string]any) {
				d["packages"].([]any)[1].(map[string]any)["environmentVariables"].([]any)[1].(map[string]any)["isSecret"] = "yes"
			},
			func(d map[string]any) {
				delete(d["packages"].([]any)[0].(map[string]any)["environmentVariables"].([]any)[0].(map[string]any), "name")
			},
		},
	}
	for where, doc := range docs {
		t.Run(where, func(t *testing.T) {
			kind := "server.json"
			if strings.HasSuffix(where, "card.json") {
				kind = "card.json"
			}
			sc := schemas[kind]
			s := registrySchema(t, sc.schema, sc.ref)
			if err := s.Validate(instance(t, doc)); err != nil {
				t.Fatalf("%s is not valid against %s: %v\n%s", where, sc.schema, err, doc)
			}
			for i, brk := range breaks[where] {
				var d map[string]any
				if err := json.Unmarshal(doc, &d); err != nil {
					t.Fatal(err)
				}
				brk(d)
				b, _ := json.Marshal(d)
				if err := s.Validate(instance(t, b)); err == nil {
					t.Errorf("broken copy %d of %s is valid against %s: %s", i, where, sc.schema, b)
				}
			}
		})
	}
}
