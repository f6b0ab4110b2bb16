package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/metaschema"
	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// statedKey identifies one use of a stated schema: a tool's input and its
// output are checked differently.
type statedKey struct {
	file  string
	input bool
}

// Stated returns the schema the user stated for st (see model.StatedSchema),
// compacted with its members in the file's order, to publish where the
// type is a tool's arguments (input) or result; derived is the schema rpcgen
// derives for the same type, which generated validation follows. It returns
// nil, having reported why at the file's line and column, when the file
// cannot be read, is not a JSON Schema of draft 2020-12 (metaschema.Check),
// breaks MCP's x-mcp-header rules (arguments), or does not describe the Go
// type: its root must be an object schema whose "properties" are exactly the
// type's JSON members and whose "required" holds every member the decoder
// requires, and as arguments it must say "additionalProperties": false,
// since the decoder rejects members the type does not have.
func (g *Builder) Stated(st *model.StatedSchema, derived *jsonschema.Schema, input bool) []byte {
	key := statedKey{st.File, input}
	if b, ok := g.stated[key]; ok {
		return b
	}
	b := g.checkStated(st, derived, input)
	if g.stated == nil {
		g.stated = map[statedKey][]byte{}
	}
	g.stated[key] = b
	return b
}

func (g *Builder) checkStated(st *model.StatedSchema, derived *jsonschema.Schema, input bool) []byte {
	name := st.Type.Obj().Name()
	src, root, at := g.readStatedFile(st)
	if root == nil {
		return nil
	}
	problems := metaschema.Check(root)
	if input {
		problems = append(problems, metaschema.CheckHeaders(root)...)
	}
	problems = append(problems, describes(root, derived, name, input)...)
	for _, p := range problems {
		g.Errorf(at(p.Off), p.Msg)
	}
	if len(problems) > 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, src); err != nil {
		g.Errorf(at(0), "not a JSON document: "+err.Error())
		return nil
	}
	return b.Bytes()
}

// describes reports how the stated root fails to describe the Go type whose
// derived schema is derived.
func describes(root *metaschema.Node, derived *jsonschema.Schema, name string, input bool) []metaschema.Problem {
	var ps []metaschema.Problem
	add := func(off int, format string, args ...any) {
		ps = append(ps, metaschema.Problem{Off: off, Msg: fmt.Sprintf(format, args...)})
	}
	what := "result"
	if input {
		what = "arguments"
	}
	t := root.Get("type")
	if root.Kind != metaschema.Object || t == nil || t.Kind != metaschema.String || t.Str != "object" {
		add(root.Off, `the schema of a tool's %s must say "type": "object" at its root`, what)
		return ps
	}
	if derived == nil || derived.Properties == nil {
		return ps // the type encodes itself: rpcgen knows no members to compare
	}
	var goKeys []string
	for p := derived.Properties.Oldest(); p != nil; p = p.Next() {
		goKeys = append(goKeys, p.Key)
	}
	props := root.Get("properties")
	var keys []string
	if props != nil && props.Kind == metaschema.Object {
		for _, m := range props.Members {
			keys = append(keys, m.Key)
		}
	}
	where := root.Off
	if props != nil {
		where = props.Off
	}
	missing := without(goKeys, keys)
	extra := without(keys, goKeys)
	if len(missing) > 0 {
		add(where, `"properties" lacks %s, which %s has (its JSON members are %s)`, list(missing), name, list(goKeys))
	}
	if len(extra) > 0 {
		add(where, `"properties" has %s, which %s has not (its JSON members are %s)`, list(extra), name, list(goKeys))
	}
	if !input {
		return ps
	}
	var required []string
	req := root.Get("required")
	if req != nil && req.Kind == metaschema.Array {
		for _, e := range req.Elems {
			required = append(required, e.Str)
		}
	}
	if lacking := without(derived.Required, required); len(lacking) > 0 {
		off := root.Off
		if req != nil {
			off = req.Off
		}
		add(off, `"required" must list %s: the generated decoder rejects arguments without them (%s's members without omitempty or omitzero that are not pointers)`, list(lacking), name)
	}
	if ap := root.Get("additionalProperties"); ap == nil || ap.Kind != metaschema.Bool || ap.Bool {
		off := root.Off
		if ap != nil {
			off = ap.Off
		}
		add(off, `the arguments schema must say "additionalProperties": false at its root: the generated decoder rejects members %s does not have`, name)
	}
	return ps
}

// without returns the members of a that b lacks, in a's order.
func without(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func list(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// readStatedFile reads and parses the file a //rpcgen:schema directive
// names, reporting a file it cannot read at the directive and a document
// that is not JSON at its offset; root is nil after an error. at turns an
// offset in src into its position in the file.
func (g *Builder) readStatedFile(st *model.StatedSchema) (src []byte, root *metaschema.Node, at func(off int) token.Position) {
	src, err := os.ReadFile(st.File)
	g.Docs.Inputs().ReadFile(st.File, src, err)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is the user's, as the directive names it
		}
		g.Errorf(g.Position(st.Pos), fmt.Sprintf("type %s: //rpcgen:schema file=%s: %v", st.Type.Obj().Name(), st.Name, err))
		return nil, nil, nil
	}
	at = func(off int) token.Position {
		line, col := metaschema.Position(src, off)
		return token.Position{Filename: st.File, Offset: off, Line: line, Column: col}
	}
	root, err = metaschema.Parse(src)
	if err != nil {
		pe := err.(*metaschema.ParseError)
		g.Errorf(at(pe.Off), "not a JSON document: "+pe.Msg)
		return nil, nil, nil
	}
	return src, root, at
}
