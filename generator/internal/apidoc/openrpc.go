package apidoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"text/template"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// renderOpenRPC writes the OpenRPC 1.3 document of api (templates/
// openrpc.json.tmpl): info, one method object per method with its params
// as content descriptors ("by-name" for a struct's members, "either" for
// params, which the dispatcher takes by name or by position), its result
// (none for a notification, as OpenRPC marks them), the errors the
// dispatcher answers with, and the shared schemas under components. Schemas
// are JSON Schema 2020-12, as in the Go file, with "$ref"s into
// "#/components/schemas/". The document is indented and ends in a newline.
//
// With OpenRPCVersionLegacy it states OpenRPC 1.2.6, whose meta-schema
// (@open-rpc/meta-schema before 1.14.3, which @open-rpc/generator's
// TypeScript client pins) lists no later version; that version's example
// pairings require a result, so error examples are left out, and its
// methods require one too, so a notification is an error.
func renderOpenRPC(api *apiDoc) ([]byte, error) {
	if api.OpenRPC == OpenRPCVersionLegacy {
		for _, m := range apiMethods(api) {
			if m.Notification {
				return nil, fmt.Errorf("--openrpc-version %s: method %s is a notification, which OpenRPC %s cannot state (every method has a result); write OpenRPC %s, or give %s a result", OpenRPCVersionLegacy, m.Name, OpenRPCVersionLegacy, OpenRPCVersion, m.GoName)
			}
		}
	}
	funcs := template.FuncMap{
		"json":    jsonText,
		"schema":  func(s *jsonschema.Schema) string { return string(schema.Marshal(s)) },
		"methods": apiMethods,
		"errors":  apiErrors,
		"titled":  titled,
		// The examples a 1.2.6 document can state: those with a result.
		"openrpcExamples": func(m *apiMethod) []apiExample {
			if api.OpenRPC != OpenRPCVersionLegacy {
				return m.Examples
			}
			var out []apiExample
			for _, x := range m.Examples {
				if x.Result != nil {
					out = append(out, x)
				}
			}
			return out
		},
	}
	raw, err := render("openrpc.json.tmpl", funcs, api)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(raw), "", "  "); err != nil {
		return nil, fmt.Errorf("openrpc.json.tmpl wrote invalid JSON: %w\n%s", err, raw)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// The OpenRPC versions the document can state: the one rpcgen writes, and
// the last before it that tools pinned to an older meta-schema accept.
const (
	OpenRPCVersion       = "1.3.2"
	OpenRPCVersionLegacy = "1.2.6"
)

// titled is c's schema with its name as its title, as OpenRPC readers (and
// generators naming types after titles) expect of a component; a schema's
// own title stays.
func titled(c *apiComponent) *jsonschema.Schema {
	if c.Schema.Title != "" {
		return c.Schema
	}
	s := *c.Schema
	s.Title = c.Name
	return &s
}
