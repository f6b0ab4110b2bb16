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
func renderOpenRPC(api *apiDoc) ([]byte, error) {
	funcs := template.FuncMap{
		"json":    jsonText,
		"schema":  func(s *jsonschema.Schema) string { return string(schema.Marshal(s)) },
		"methods": apiMethods,
		"errors":  apiErrors,
		"titled":  titled,
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
