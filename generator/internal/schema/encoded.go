package schema

// The schemas of types that encode themselves: the standard library's
// that rpcgen knows, and those the user states (//rpcgen:schema file= on a
// type with MarshalJSON or MarshalText, or on an alias of one).

import (
	"encoding/json"
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/metaschema"
	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// wellKnown are the schemas of the standard library's types that
// encode themselves, or whose JSON says too little without a word, by
// "path.Name" (see model.WellKnown).
var wellKnown = map[string]jsonschema.Schema{
	"time.Time":                {Type: "string", Format: "date-time"},
	"encoding/json.RawMessage": {},
	"encoding/json.Number":     {Type: "number"},
	"time.Duration": {Type: "integer", Minimum: "-9223372036854775808", Maximum: "9223372036854775807",
		Description: "A duration in nanoseconds (Go's time.Duration): 1500000000 is 1.5 s."},
	"math/big.Int": {Type: "integer",
		Description: "An integer of any size (Go's big.Int); beyond 2^53 a JavaScript client's numbers lose digits."},
	"math/big.Float": {Type: "string",
		Description: `A floating-point number of any precision, as text (Go's big.Float): "1.5", "-2e+100", "+Inf".`},
	"math/big.Rat": {Type: "string",
		Description: `A fraction as text (Go's big.Rat): "1/3", or an integer, "5".`},
	"net/netip.Addr": {Type: "string",
		Description: `An IP address: "192.0.2.1", "2001:db8::1", or "" for none.`},
	"net/netip.AddrPort": {Type: "string",
		Description: `An IP address and a port: "192.0.2.1:80", "[2001:db8::1]:80".`},
	"net/netip.Prefix": {Type: "string",
		Description: `An IP network in CIDR notation: "10.0.0.0/8", "2001:db8::/32".`},
	"net.IP": {Type: "string",
		Description: `An IP address: "192.0.2.1", "2001:db8::1", or "" for none.`},
	"log/slog.Level": {Type: "string",
		Description: `A log level (Go's slog.Level): "DEBUG", "INFO", "WARN", "ERROR", or one with an offset, "INFO+2".`},
}

// encodedSchema returns the schema of n, a type that encodes itself (kind,
// with owner declaring the methods: see model.EncodingOf), nil when rpcgen
// has none to give (the model has reported it).
func (g *Builder) encodedSchema(n *types.Named, kind model.Encoding, owner *types.Named) *jsonschema.Schema {
	if owner == nil {
		owner = n
	}
	if st := g.TypeSchemas[TypeKey(owner)]; st != nil {
		return g.statedType(st, kind)
	}
	if s, ok := wellKnown[model.TypeName(owner)]; ok {
		return Clone(&s)
	}
	if kind == model.EncodesText {
		return &jsonschema.Schema{Type: "string", Description: model.OneLine(g.Docs.doc(docType, owner.Obj().Pos()))}
	}
	return nil
}

// statedType reads and checks the schema stated for a type that encodes
// itself, once; it returns {} (any value), having reported why at the
// file's line and column, when the file cannot serve. The schema is put
// wherever the type is used, inside other schemas: it may not refer to
// its own parts ($ref, $defs, $anchor...), which would resolve against
// another root; "$schema" is dropped.
func (g *Builder) statedType(st *model.StatedSchema, kind model.Encoding) *jsonschema.Schema {
	if s, ok := g.statedTypes[st.File]; ok {
		return Clone(s)
	}
	s := g.readStatedType(st, kind)
	if s == nil {
		s = &jsonschema.Schema{}
	}
	if g.statedTypes == nil {
		g.statedTypes = map[string]*jsonschema.Schema{}
	}
	g.statedTypes[st.File] = s
	return Clone(s)
}

func (g *Builder) readStatedType(st *model.StatedSchema, kind model.Encoding) *jsonschema.Schema {
	name := st.Type.Obj().Name()
	src, root, at := g.readStatedFile(st)
	if root == nil {
		return nil
	}
	problems := metaschema.Check(root)
	forSchemas(root, func(n *metaschema.Node) {
		for _, m := range n.Members {
			switch m.Key {
			case "$ref", "$dynamicRef", "$defs", "definitions", "$anchor", "$dynamicAnchor", "$id":
				problems = append(problems, metaschema.Problem{Off: m.KeyOff, Msg: fmt.Sprintf(`%s: the schema of %s, which writes its own JSON, goes wherever %s is used, inside other schemas, where a reference to its own parts would not resolve; write it without %q`, m.Key, name, name, m.Key)})
			}
		}
	})
	if kind == model.EncodesText {
		if t := root.Get("type"); t == nil || t.Kind != metaschema.String || t.Str != "string" {
			off := root.Off
			if t != nil {
				off = t.Off
			}
			problems = append(problems, metaschema.Problem{Off: off, Msg: fmt.Sprintf(`the schema of %s must say "type": "string": encoding/json writes it as its text (MarshalText), a string`, name)})
		}
	}
	for _, p := range problems {
		g.Errorf(at(p.Off), p.Msg)
	}
	if len(problems) > 0 {
		return nil
	}
	s, err := parseSchema(src, root)
	if err != nil {
		g.Errorf(at(0), "not a schema rpcgen can read: "+err.Error())
		return nil
	}
	s.Version = "" // "$schema": it sits inside other schemas
	return s
}

// Keywords whose values are schemas, lists of schemas, or maps of them
// (draft 2020-12's applicators).
var (
	schemaKeywords    = []string{"items", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
	schemaListKeyword = []string{"prefixItems", "allOf", "anyOf", "oneOf"}
	schemaMapKeyword  = []string{"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
)

// forSchemas calls fn for n, a schema, and each schema below it.
func forSchemas(n *metaschema.Node, fn func(*metaschema.Node)) {
	if n == nil || n.Kind != metaschema.Object {
		return
	}
	fn(n)
	for _, m := range n.Members {
		switch {
		case slices.Contains(schemaKeywords, m.Key):
			forSchemas(m.Value, fn)
		case slices.Contains(schemaListKeyword, m.Key) && m.Value.Kind == metaschema.Array:
			for _, e := range m.Value.Elems {
				forSchemas(e, fn)
			}
		case slices.Contains(schemaMapKeyword, m.Key) && m.Value.Kind == metaschema.Object:
			for _, e := range m.Value.Members {
				forSchemas(e.Value, fn)
			}
		}
	}
}

// schemaKeys are the keywords invopop's Schema has a field for.
var schemaKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}()

// parseSchema reads a JSON Schema, whose tree is root, into invopop's
// model, keeping the keywords it has no field for in Extras, at every
// level.
func parseSchema(src []byte, root *metaschema.Node) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(src, &s); err != nil {
		return nil, err
	}
	extras(&s, root)
	return &s, nil
}

// extras puts the members of n, the node of s, that invopop's Schema has
// no field for into s.Extras, and does the same below.
func extras(s *jsonschema.Schema, n *metaschema.Node) {
	if s == nil || n == nil || n.Kind != metaschema.Object {
		return
	}
	sub := map[string]*jsonschema.Schema{
		"items": s.Items, "contains": s.Contains, "additionalProperties": s.AdditionalProperties,
		"propertyNames": s.PropertyNames, "if": s.If, "then": s.Then, "else": s.Else, "not": s.Not,
		"contentSchema": s.ContentSchema,
	}
	lists := map[string][]*jsonschema.Schema{"prefixItems": s.PrefixItems, "allOf": s.AllOf, "anyOf": s.AnyOf, "oneOf": s.OneOf}
	for _, m := range n.Members {
		switch {
		case sub[m.Key] != nil:
			extras(sub[m.Key], m.Value)
		case lists[m.Key] != nil && m.Value.Kind == metaschema.Array:
			for i, e := range m.Value.Elems {
				if i < len(lists[m.Key]) {
					extras(lists[m.Key][i], e)
				}
			}
		case m.Key == "properties" && s.Properties != nil && m.Value.Kind == metaschema.Object:
			for _, p := range m.Value.Members {
				if ps, ok := s.Properties.Get(p.Key); ok {
					extras(ps, p.Value)
				}
			}
		case m.Key == "patternProperties" || m.Key == "dependentSchemas":
			target := s.PatternProperties
			if m.Key == "dependentSchemas" {
				target = s.DependentSchemas
			}
			for _, p := range m.Value.Members {
				extras(target[p.Key], p.Value)
			}
		case !schemaKeys[m.Key]:
			if s.Extras == nil {
				s.Extras = map[string]any{}
			}
			s.Extras[m.Key] = nodeValue(m.Value)
		}
	}
}

// nodeValue is n as encoding/json would decode it into an any, but with
// numbers as json.Number.
func nodeValue(n *metaschema.Node) any {
	switch n.Kind {
	case metaschema.Bool:
		return n.Bool
	case metaschema.Number:
		return n.Num
	case metaschema.String:
		return n.Str
	case metaschema.Array:
		out := make([]any, len(n.Elems))
		for i, e := range n.Elems {
			out[i] = nodeValue(e)
		}
		return out
	case metaschema.Object:
		out := make(map[string]any, len(n.Members))
		for _, m := range n.Members {
			out[m.Key] = nodeValue(m.Value)
		}
		return out
	}
	return nil
}
