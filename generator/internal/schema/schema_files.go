package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// Files returns the files --schema-dir writes into dir (absolute): for
// every method of every service, DIR/<method>.params.schema.json (the params
// object) and, when the method has a result, DIR/<method>.result.schema.json
// (the JSON-RPC result, unwrapped), where <method> is the JSON-RPC method
// name. They are indented, end in a newline, and name their dialect with
// "$schema" (the constants in the Go file leave it out: 2020-12 is MCP's
// default). Each has a "title" saying what it describes and no "$id": there
// is no URL the schema lives at, and its "$ref"s are all local. A params
// file's description is the method's doc, as the MCP tool's description is.
func Files(g *Builder, services []*model.Service, dir string) map[string][]byte {
	files := map[string][]byte{}
	owner := map[string]*model.Method{}
	add := func(m *model.Method, what string, s *jsonschema.Schema, stated *model.StatedSchema) {
		path := filepath.Join(dir, schemaFileName(m.RPCName)+"."+what+".schema.json")
		if prev := owner[path]; prev != nil && prev != m {
			g.Errorf(m.Pos, fmt.Sprintf("method %s: its schema file %s is also that of %s; give one of them another name", m.Name, filepath.Base(path), prev.Name))
			return
		}
		owner[path] = m
		if stated != nil {
			// The user's schema, as written (indented like the others).
			derived := s
			if what == "result" {
				derived, _ = g.OutputSchema(m) // the object, not the JSON-RPC result that may be null
			}
			if b := g.Stated(stated, derived, what == "params"); b != nil {
				var out bytes.Buffer
				json.Indent(&out, b, "", "  ")
				out.WriteByte('\n')
				files[path] = out.Bytes()
			}
			return
		}
		root := *s // shallow: the schema was built for this file alone
		root.Version = jsonschema.Version
		if root.Title == "" {
			root.Title = m.RPCName + " " + what
		}
		if what == "params" && m.Doc != "" {
			// A file stands alone: say what the method does, as the tool
			// description would (param lines already taken out of it).
			root.Description = model.OneLine(m.Doc)
		}
		files[path] = Pretty(&root)
	}
	for _, svc := range services {
		for _, m := range svc.Methods {
			add(m, "params", g.InputSchema(m), m.StatedInput)
			switch {
			case m.Stream:
				add(m, "item", g.ResultSchema(m), m.StatedOutput)
			case m.Result != nil:
				add(m, "result", g.ResultSchema(m), m.StatedOutput)
			}
		}
	}
	return files
}

// schemaFileName makes a JSON-RPC method name safe as a file name on every
// system: characters other than letters, digits, '.', '_' and '-' become '_'.
func schemaFileName(method string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, method)
}
