// Package schema builds JSON Schemas (draft 2020-12) of Go types from
// go/types: descriptions from doc comments (which it reads from the syntax
// of the package and its dependencies), keywords from jsonschema tags,
// enums from const blocks; it marshals them compactly and renders the
// per-method schema files.
package schema

import (
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// Builder builds JSON Schemas (draft 2020-12) statically from go/types into
// invopop's Schema model; nothing is reflected at run time. One is created
// per generation; problems are reported through errs, positioned, once each.
//
// Decisions, in short (design.md §3 has the rules):
//   - types are inlined; only recursive named types go through "$defs", and a
//     root's "$defs" holds only the definitions it reaches;
//   - schemas allow null exactly where encoding/json writes it for a nil
//     value (pointers, slices and maps not left out by omitempty/omitzero,
//     and such elements and params), as {"anyOf":[T,{"type":"null"}]}, in
//     input and output schemas alike: what a Go client sends and what Go
//     answers validate, and the decoders read null there as nil. A pointer
//     member is also optional. A slice or map whose minItems or
//     minProperties asks for an item is not null: the decoder refuses nil;
//   - every struct object has "additionalProperties": false, as the generated
//     validation rejects unknown fields.
type Builder struct {
	Pkg  *packages.Package
	errs *diag.Collector
	Docs *DocIndex

	reported map[string]bool // errors already reported, "pos msg"
	errCalls int             // errorf calls, reported or not (see namedBody)

	recursive map[string]bool   // type key -> whether the named type contains itself
	defNames  map[string]string // type key -> name under $defs, unique per generation
	DefTypes  map[string]string // name under $defs -> type key
	defs      map[DefKey]*jsonschema.Schema
	building  map[DefKey]bool
	enums     map[*types.Named]enumInfo           // enumOf's answers
	bodies    map[bodyKey]*jsonschema.Schema      // namedBody's answers, shared (see namedBody)
	specials  map[*types.Named]*jsonschema.Schema // special's answers, nil included; never handed out

	stated map[statedKey][]byte // Stated's answers, nil included
	// TypeSchemas are the schemas stated for the types that write their own
	// JSON, by TypeKey (model.Service.TypeSchemas); statedTypes holds them
	// read, by file.
	TypeSchemas map[string]*model.StatedSchema
	statedTypes map[string]*jsonschema.Schema

	allDefs bool // named struct types go under "$defs" (see defsGen)
	// deep makes namedBody hand out deep copies, as it did before it shared
	// its answers; tests compare the two.
	Deep     bool
	withDefs *Builder // the builder for methods with the defs option
}

// bodyKey identifies a namedBody answer: the output flag is all of buildCtx
// that changes a schema (path and pos only place errors).
type bodyKey struct {
	n      *types.Named
	output bool
}

// DefKey identifies one $defs entry: input and output schemas differ (null).
type DefKey struct {
	TypeKey string
	Output  bool
}

// BuildCtx is where in a schema a type is being described.
type BuildCtx struct {
	Output bool           // describing a result (see the schemaGen doc on null)
	Path   string         // Go path for error messages, e.g. "NewNote.Tags"
	Pos    token.Position // where to report a problem
}

// NewBuilder returns a schema builder for the services of pkg.
func NewBuilder(pkg *packages.Package, errs *diag.Collector) *Builder {
	g := &Builder{Pkg: pkg, errs: errs}
	if pkg != nil {
		g.Docs = NewDocIndex(pkg.Fset, pkg.Syntax)
	}
	return g
}

// Position resolves pos in the loaded package, the zero Position when it
// has none.
func (g *Builder) Position(pos token.Pos) token.Position {
	if g.Pkg == nil || g.Pkg.Fset == nil || !pos.IsValid() {
		return token.Position{}
	}
	return g.Pkg.Fset.Position(pos)
}

// Errorf reports a problem at c.pos, once.
func (g *Builder) Errorf(pos token.Position, msg string) {
	g.errCalls++
	key := pos.String() + " " + msg
	if g.reported[key] {
		return
	}
	if g.reported == nil {
		g.reported = map[string]bool{}
	}
	g.reported[key] = true
	if g.errs != nil {
		g.errs.List = append(g.errs.List, &diag.Error{Pos: pos, Msg: msg})
	}
}

// TypeString prints t as written in the loaded package.
func (g *Builder) TypeString(t types.Type) string {
	var q types.Qualifier
	if g.Pkg != nil {
		q = types.RelativeTo(g.Pkg.Types)
	}
	return types.TypeString(t, q)
}

// schemaOf returns the input schema of t, with the enum and description its
// named type gives; recursive types are "$ref"s into "$defs" (see rootDefs).
func (g *Builder) schemaOf(t types.Type) *jsonschema.Schema {
	return g.build(t, BuildCtx{Path: g.TypeString(t)})
}

// FieldSchema returns the input schema of the member f of st: the type's
// schema, the field's doc as description, and its `jsonschema` tag applied.
func (g *Builder) FieldSchema(st *types.Struct, f Field) *jsonschema.Schema {
	return g.field(f, BuildCtx{Pos: f.Pos})
}

// InputSchema returns the tool input schema of m: always an object, with
// additionalProperties false. For StructParams it is the struct's schema;
// otherwise each param is a property keyed by its JSONKey, required unless a
// pointer, described by Param.Doc.
func (g *Builder) InputSchema(m *model.Method) *jsonschema.Schema {
	if m.Schema.Defs && !g.allDefs {
		return g.defsGen().InputSchema(m)
	}
	c := BuildCtx{Path: m.Name, Pos: m.Pos}
	var s *jsonschema.Schema
	if m.StructParams {
		p := m.Params[0]
		c.Pos = p.Pos
		s = g.rootBody(p.Type, c)
		if s.Type != "object" { // the struct encodes itself: any object
			s = &jsonschema.Schema{Type: "object", Description: s.Description}
		}
	} else {
		s = &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema}
		if len(m.Params) > 0 {
			s.Properties = jsonschema.NewProperties()
		}
		for _, p := range m.Params {
			s.Properties.Set(p.JSONKey, g.ParamSchema(m, p))
			if _, ptr := types.Unalias(p.Type).(*types.Pointer); !ptr {
				s.Required = append(s.Required, p.JSONKey)
			}
		}
	}
	return rooted(m, g.rootDefs(g.own(s), false))
}

// ParamSchema returns the property schema of a param of a method whose
// params are not a single struct: its type's schema described by Param.Doc
// (the named type's doc when the param has none).
func (g *Builder) ParamSchema(m *model.Method, p *model.Param) *jsonschema.Schema {
	s := g.own(g.build(p.Type, BuildCtx{Path: m.Name + "." + p.Name, Pos: p.Pos}))
	if p.Doc != "" {
		s.Description = WithEnumNotes(model.OneLine(p.Doc), g.EnumNotes(p.Type))
	}
	return nullableAs(p.Type, s) // a nil param is sent as null
}

// OutputSchema returns the tool output schema of m, nil when m has no
// result. An object result (a struct, a pointer to one, or a map) is the
// schema as is; anything else is wrapped as {"result": R} (wrapped true), so
// that the root is an object in every MCP revision.
func (g *Builder) OutputSchema(m *model.Method) (s *jsonschema.Schema, wrapped bool) {
	if m.Result == nil || m.Content != model.ContentNone {
		return nil, false // content has no output schema
	}
	if m.Schema.Defs && !g.allDefs {
		return g.defsGen().OutputSchema(m)
	}
	c := BuildCtx{Output: true, Path: m.Name + " result", Pos: m.Pos}
	if m.Stream {
		return rooted(m, g.rootDefs(streamToolResult(g.value(m.Result, c)), true)), false
	}
	if s := g.rootBody(m.Result, c); s.Type == "object" {
		return rooted(m, g.rootDefs(g.own(s), true)), false
	}
	props := jsonschema.NewProperties()
	props.Set("result", described(g.value(m.Result, c), m.ResultDoc))
	s = &jsonschema.Schema{
		Type:                 "object",
		Properties:           props,
		Required:             []string{"result"},
		AdditionalProperties: jsonschema.FalseSchema,
	}
	return rooted(m, g.rootDefs(s, true)), true
}

// described is s with doc, the doc comment's "result:" line, as its
// description, for a reader of the output schema's "result" property, as
// the OpenRPC result carries it; s as it is when doc is empty.
func described(s *jsonschema.Schema, doc string) *jsonschema.Schema {
	if doc == "" {
		return s
	}
	if s == jsonschema.TrueSchema {
		return &jsonschema.Schema{Description: doc} // any value, described
	}
	s = Shallow(s)
	s.Description = doc
	return s
}

// streamToolResult is the schema of a stream tool's result (mcpserver.StreamTool)
// whose items have the schema item.
func streamToolResult(item *jsonschema.Schema) *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("count", &jsonschema.Schema{Type: "integer", Description: "How many items the stream produced."})
	props.Set("items", &jsonschema.Schema{Type: "array", Items: item, Description: "The items, or the first of them when truncated."})
	props.Set("truncated", &jsonschema.Schema{Type: "boolean", Description: "Whether items holds fewer than count."})
	props.Set("note", &jsonschema.Schema{Type: "string", Description: "When truncated, what the result leaves out."})
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           props,
		Required:             []string{"count", "items", "truncated"},
		AdditionalProperties: jsonschema.FalseSchema,
	}
}

// ResultSchema returns the schema of m's JSON-RPC result, unwrapped; nil when
// m has no result. A nil-able result (pointer, slice, map) may be null. For a
// stream it is the schema of one item.
func (g *Builder) ResultSchema(m *model.Method) *jsonschema.Schema {
	if m.Result == nil {
		return nil
	}
	if m.Schema.Defs && !g.allDefs {
		return g.defsGen().ResultSchema(m)
	}
	c := BuildCtx{Output: true, Path: m.Name + " result", Pos: m.Pos}
	s := g.rootBody(m.Result, c)
	if nilable(m.Result) {
		s = nullable(s)
	}
	return rooted(m, g.rootDefs(g.own(s), true))
}

// TypeSchema returns the schema of a value of type t at a root (output
// says a value written by Go, which may be null where Go writes null),
// with the "$defs" it refers to; what, at pos, names it in errors.
func (g *Builder) TypeSchema(t types.Type, output bool, what string, pos token.Position) *jsonschema.Schema {
	c := BuildCtx{Output: output, Path: what, Pos: pos}
	return g.rootDefs(g.own(g.rootBody(t, c)), output)
}

// rootBody is the schema of t at a root: t's own body even when t is a
// recursive type (a root "$ref" would not say "type":"object").
func (g *Builder) rootBody(t types.Type, c BuildCtx) *jsonschema.Schema {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if n, ok := t.(*types.Named); ok && g.Special(n, c) == nil && g.viaDefs(n) {
		return g.NamedBody(n, c)
	}
	return g.build(t, c)
}

// ref returns a "$ref" to the definition of the recursive type n, building
// the definition the first time.
func (g *Builder) ref(n *types.Named, c BuildCtx) *jsonschema.Schema {
	key := TypeKey(n)
	name, ok := g.defNames[key]
	if !ok {
		if g.defNames == nil {
			g.defNames, g.DefTypes = map[string]string{}, map[string]string{}
			g.defs, g.building = map[DefKey]*jsonschema.Schema{}, map[DefKey]bool{}
		}
		name = n.Obj().Name()
		if _, taken := g.DefTypes[name]; taken && n.Obj().Pkg() != nil {
			name = n.Obj().Pkg().Name() + "." + name // the same name from another package
		}
		for i := 2; g.DefTypes[name] != ""; i++ {
			name = n.Obj().Name() + strconv.Itoa(i)
		}
		g.defNames[key], g.DefTypes[name] = name, key
	}
	dk := DefKey{key, c.Output}
	if !g.building[dk] {
		g.building[dk] = true
		c.Path = n.Obj().Name()
		g.defs[dk] = g.NamedBody(n, c)
	}
	return &jsonschema.Schema{Ref: "#/$defs/" + name}
}

// rootDefs puts into s's "$defs" the definitions s reaches, directly or
// through other definitions, and returns s.
func (g *Builder) rootDefs(s *jsonschema.Schema, output bool) *jsonschema.Schema {
	if len(g.defs) == 0 {
		return s
	}
	defs := jsonschema.Definitions{}
	var visit func(*jsonschema.Schema)
	visit = func(x *jsonschema.Schema) {
		walkSchema(x, func(y *jsonschema.Schema) {
			name, ok := strings.CutPrefix(y.Ref, "#/$defs/")
			if !ok || defs[name] != nil {
				return
			}
			if d := g.defs[DefKey{g.DefTypes[name], output}]; d != nil {
				defs[name] = d
				visit(d)
			}
		})
	}
	visit(s)
	if len(defs) > 0 {
		s.Definitions = defs
	}
	return s
}

// walkSchema calls fn for s and every schema below it (not through $defs).
func walkSchema(s *jsonschema.Schema, fn func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	subs := []*jsonschema.Schema{s.Not, s.If, s.Then, s.Else, s.Items, s.Contains,
		s.AdditionalProperties, s.PropertyNames, s.ContentSchema}
	subs = append(subs, s.AllOf...)
	subs = append(subs, s.AnyOf...)
	subs = append(subs, s.OneOf...)
	subs = append(subs, s.PrefixItems...)
	for _, k := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		subs = append(subs, s.PatternProperties[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		subs = append(subs, s.DependentSchemas[k])
	}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			subs = append(subs, p.Value)
		}
	}
	for _, x := range subs {
		walkSchema(x, fn)
	}
}

// TypeKey identifies a type across the packages of one generation.
func TypeKey(t types.Type) string { return types.TypeString(t, nil) }
