package apidoc

import (
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/naming"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// components finds the named types an API's schemas share and replaces
// their inlined schemas by "$ref"s to components named after the Go types.
//
// The schema builder inlines every named type but the recursive ones, so
// the names are found by walking the Go types of the params and results:
// every named struct, enum or recursive type met there is a candidate, with
// its schema as the builder makes it. A subschema whose text (its own
// description aside, which a field's doc may replace) is a candidate's
// schema becomes a "$ref" to it; one that differs, say because a field's
// `jsonschema` tag added a keyword, stays inline. Input and output schemas
// of a type are built apart and may differ, so a type used both ways and
// described differently gets two components, the one met second named with
// "Input" or "Result" after the type's name.
type components struct {
	sg     *schema.Builder
	cands  []candidate
	seen   map[schema.DefKey]bool
	byText map[string]*apiComponent // canonical text -> component
	byType map[schema.DefKey]*apiComponent
	owners map[string]string // component name -> type key

	// current is the component whose schema refs is working on, nil while
	// it works on a method's; deps and roots record what refers to what.
	current *apiComponent
	deps    map[*apiComponent][]*apiComponent
	roots   map[*apiComponent]bool
	// paramRoots are the components paramsRef handed out.
	paramRoots map[*apiComponent]bool
}

// candidate is a named type that may become a component.
type candidate struct {
	n      *types.Named
	output bool
}

func newComponents(sg *schema.Builder) *components {
	return &components{sg: sg, seen: map[schema.DefKey]bool{}, byText: map[string]*apiComponent{},
		byType: map[schema.DefKey]*apiComponent{}, owners: map[string]string{},
		deps: map[*apiComponent][]*apiComponent{}, roots: map[*apiComponent]bool{},
		paramRoots: map[*apiComponent]bool{}}
}

// collect records the candidates reachable from t, a param's type (output
// false) or a result's (output true).
func (c *components) collect(t types.Type, output bool) {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if schema.HasMCPSchema(t) {
			k := schema.DefKey{TypeKey: schema.TypeKey(t), Output: output}
			if !c.seen[k] {
				c.seen[k] = true
				c.cands = append(c.cands, candidate{t, output})
				for _, part := range schema.MCPParts(t) {
					c.collect(part, output)
				}
			}
			return
		}
		if c.sg.Special(t, schema.BuildCtx{}) != nil {
			return
		}
		k := schema.DefKey{TypeKey: schema.TypeKey(t), Output: output}
		if c.seen[k] {
			return
		}
		c.seen[k] = true
		_, isStruct := t.Underlying().(*types.Struct)
		if vals, _ := c.sg.EnumOf(t); isStruct || len(vals) > 0 || c.sg.IsRecursive(t) {
			c.cands = append(c.cands, candidate{t, output})
		}
		c.collect(t.Underlying(), output)
	case *types.Pointer:
		c.collect(t.Elem(), output)
	case *types.Slice:
		c.collect(t.Elem(), output)
	case *types.Array:
		c.collect(t.Elem(), output)
	case *types.Map:
		c.collect(t.Elem(), output)
	case *types.Struct:
		fields, _ := c.sg.FieldsOf(t)
		for _, f := range fields {
			c.collect(f.Type, output)
		}
	}
}

// reserve keeps names from the components: a type of that name gets its
// package's name before it.
func (c *components) reserve(names ...string) {
	for _, n := range names {
		c.owners[n] = "(reserved)"
	}
}

// index builds the candidates' schemas and names, once all are collected.
func (c *components) index() {
	var built []*apiComponent
	var modes []bool
	for _, cd := range c.cands {
		// children changes it; the builder shares what it hands out.
		body := c.sg.Special(cd.n, schema.BuildCtx{}) // a copy
		if body == nil {
			body = schema.Clone(c.sg.NamedBody(cd.n, schema.BuildCtx{Output: cd.output, Path: cd.n.Obj().Name(), Pos: c.sg.Position(cd.n.Obj().Pos())}))
		}
		text := canonicalSchema(body)
		k := schema.DefKey{TypeKey: schema.TypeKey(cd.n), Output: cd.output}
		if comp := c.byText[text]; comp != nil {
			c.byType[k] = comp
			continue
		}
		comp := &apiComponent{Name: c.name(cd.n, cd.output), Schema: body}
		c.byText[text], c.byType[k] = comp, comp
		built = append(built, comp)
		modes = append(modes, cd.output)
	}
	for i, comp := range built {
		c.current = comp
		c.children(comp.Schema, modes[i])
	}
	c.current = nil
}

// name picks a component name for n: the Go type's name (type arguments
// spelled out), its package's name before it when another package has a
// type of that name, "Input" after it for the input variant of a type whose
// output schema differs.
func (c *components) name(n *types.Named, output bool) string {
	key := schema.TypeKey(n)
	base := typeIdent(n)
	if owner, ok := c.owners[base]; ok && owner != key && n.Obj().Pkg() != nil {
		base = naming.UpperFirst(identChars(n.Obj().Pkg().Name())) + base
	}
	if owner, ok := c.owners[base]; ok && owner == key {
		if output {
			base += "Result"
		} else {
			base += "Input"
		}
	}
	name := base
	for i := 2; c.owners[name] != ""; i++ {
		name = base + strconv.Itoa(i)
	}
	c.owners[name] = key
	return name
}

// typeIdent spells a named type as an identifier: Page[Note] is PageNote.
func typeIdent(t types.Type) string {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		name := identChars(t.Obj().Name())
		for i := range t.TypeArgs().Len() {
			name += naming.UpperFirst(typeIdent(t.TypeArgs().At(i)))
		}
		return name
	case *types.Basic:
		return naming.UpperFirst(t.Name())
	case *types.Pointer:
		return typeIdent(t.Elem())
	case *types.Slice:
		return typeIdent(t.Elem()) + "List"
	case *types.Map:
		return typeIdent(t.Elem()) + "Map"
	}
	return "Value"
}

// identChars keeps the letters, digits and underscores of s.
func identChars(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// canonicalSchema is the text components are matched by: s without its own
// description.
func canonicalSchema(s *jsonschema.Schema) string {
	cp := *s
	cp.Description = ""
	return string(schema.Marshal(&cp))
}

// refs returns s with the candidates' schemas in it, s itself included,
// replaced by "$ref"s, and the builder's "#/$defs/" references pointed at
// the components. It changes s.
func (c *components) refs(s *jsonschema.Schema, output bool) *jsonschema.Schema {
	if s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema {
		return s
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
		key := c.sg.DefTypes[name]
		comp := c.byType[schema.DefKey{TypeKey: key, Output: output}]
		if comp == nil {
			comp = c.byType[schema.DefKey{TypeKey: key, Output: !output}]
		}
		if comp != nil {
			c.use(comp)
			s.Ref = componentRef(comp.Name)
		}
		return s
	}
	if comp := c.byText[canonicalSchema(s)]; comp != nil {
		c.use(comp)
		r := &jsonschema.Schema{Ref: componentRef(comp.Name)}
		if s.Description != comp.Schema.Description {
			r.Description = s.Description
		}
		return r
	}
	c.children(s, output)
	return s
}

// children applies refs to every schema directly below s.
func (c *components) children(s *jsonschema.Schema, output bool) {
	r := func(x *jsonschema.Schema) *jsonschema.Schema { return c.refs(x, output) }
	list := func(l []*jsonschema.Schema) {
		for i := range l {
			l[i] = r(l[i])
		}
	}
	s.Items, s.Contains, s.AdditionalProperties = r(s.Items), r(s.Contains), r(s.AdditionalProperties)
	s.Not, s.If, s.Then, s.Else = r(s.Not), r(s.If), r(s.Then), r(s.Else)
	list(s.AllOf)
	list(s.AnyOf)
	list(s.OneOf)
	list(s.PrefixItems)
	for _, k := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		s.PatternProperties[k] = r(s.PatternProperties[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		s.DependentSchemas[k] = r(s.DependentSchemas[k])
	}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			p.Value = r(p.Value)
		}
	}
	s.Definitions = nil // what they held are components now
}

// paramsRef returns a "$ref" to the component of t, the struct that is a
// method's params object, or nil when it has none.
func (c *components) paramsRef(t types.Type) *jsonschema.Schema {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, ok := t.(*types.Named)
	if !ok {
		return nil
	}
	comp := c.byType[schema.DefKey{TypeKey: schema.TypeKey(n), Output: false}]
	if comp == nil {
		return nil
	}
	c.paramRoots[comp] = true
	return &jsonschema.Schema{Ref: componentRef(comp.Name)}
}

// use records that the schema being worked on refers to comp.
func (c *components) use(comp *apiComponent) {
	if c.current == nil {
		c.roots[comp] = true
	} else if c.current != comp && !slices.Contains(c.deps[c.current], comp) {
		c.deps[c.current] = append(c.deps[c.current], comp)
	}
}

// used returns the components the methods' schemas refer to, directly or
// through other components, in the order the types were met; withParams
// adds those paramsRef handed out.
func (c *components) used(withParams bool) []*apiComponent {
	need := map[*apiComponent]bool{}
	var mark func(*apiComponent)
	mark = func(comp *apiComponent) {
		if need[comp] {
			return
		}
		need[comp] = true
		for _, d := range c.deps[comp] {
			mark(d)
		}
	}
	for comp := range c.roots {
		mark(comp)
	}
	if withParams {
		for comp := range c.paramRoots {
			mark(comp)
		}
	}
	var out []*apiComponent
	seen := map[*apiComponent]bool{}
	for _, cd := range c.cands {
		comp := c.byType[schema.DefKey{TypeKey: schema.TypeKey(cd.n), Output: cd.output}]
		if comp != nil && need[comp] && !seen[comp] {
			seen[comp] = true
			out = append(out, comp)
		}
	}
	return out
}
