package schema

import (
	"maps"
	"slices"

	"github.com/invopop/jsonschema"
)

// Clone returns a deep copy of s, which its holder may change freely
// without touching s. The boolean schemas jsonschema.TrueSchema and
// FalseSchema are kept as they are: the writer knows them by identity.
// Values of type any (enum, const, default, examples, extras) are only ever
// replaced, never changed in place, so their slices are copied but not what
// they hold, except a []any default, which applyTag appends to.
func Clone(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema {
		return s
	}
	c := *s
	c.Definitions = cloneSchemaMap(s.Definitions)
	c.AllOf = cloneSchemaList(s.AllOf)
	c.AnyOf = cloneSchemaList(s.AnyOf)
	c.OneOf = cloneSchemaList(s.OneOf)
	c.Not = Clone(s.Not)
	c.If = Clone(s.If)
	c.Then = Clone(s.Then)
	c.Else = Clone(s.Else)
	c.DependentSchemas = cloneSchemaMap(s.DependentSchemas)
	c.PrefixItems = cloneSchemaList(s.PrefixItems)
	c.Items = Clone(s.Items)
	c.Contains = Clone(s.Contains)
	if s.Properties != nil {
		c.Properties = jsonschema.NewProperties()
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			c.Properties.Set(p.Key, Clone(p.Value))
		}
	}
	c.PatternProperties = cloneSchemaMap(s.PatternProperties)
	c.AdditionalProperties = Clone(s.AdditionalProperties)
	c.PropertyNames = Clone(s.PropertyNames)
	c.Enum = slices.Clone(s.Enum)
	c.MaxLength = cloneUint(s.MaxLength)
	c.MinLength = cloneUint(s.MinLength)
	c.MaxItems = cloneUint(s.MaxItems)
	c.MinItems = cloneUint(s.MinItems)
	c.MaxContains = cloneUint(s.MaxContains)
	c.MinContains = cloneUint(s.MinContains)
	c.MaxProperties = cloneUint(s.MaxProperties)
	c.MinProperties = cloneUint(s.MinProperties)
	c.Required = slices.Clone(s.Required)
	if s.DependentRequired != nil {
		c.DependentRequired = make(map[string][]string, len(s.DependentRequired))
		for k, v := range s.DependentRequired {
			c.DependentRequired[k] = slices.Clone(v)
		}
	}
	c.ContentSchema = Clone(s.ContentSchema)
	if list, ok := s.Default.([]any); ok {
		c.Default = slices.Clone(list)
	}
	c.Examples = slices.Clone(s.Examples)
	c.Extras = maps.Clone(s.Extras)
	return &c
}

// Shallow returns a copy of s that shares the schemas below it with s.
// Its enum, examples, required and array default are clipped to their
// length, so that appending to them (applyTag does) copies them rather than
// writing into an array s shares; its extras are copied. The boolean
// schemas are kept as they are, as in cloneSchema.
func Shallow(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema {
		return s
	}
	c := *s
	c.Enum = slices.Clip(s.Enum)
	c.Examples = slices.Clip(s.Examples)
	c.Required = slices.Clip(s.Required)
	if list, ok := s.Default.([]any); ok {
		c.Default = slices.Clip(list)
	}
	c.Extras = maps.Clone(s.Extras)
	return &c
}

func cloneSchemaList(l []*jsonschema.Schema) []*jsonschema.Schema {
	if l == nil {
		return nil
	}
	c := make([]*jsonschema.Schema, len(l))
	for i, s := range l {
		c[i] = Clone(s)
	}
	return c
}

func cloneSchemaMap[M ~map[string]*jsonschema.Schema](m M) M {
	if m == nil {
		return nil
	}
	c := make(M, len(m))
	for k, s := range m {
		c[k] = Clone(s)
	}
	return c
}

func cloneUint(p *uint64) *uint64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
