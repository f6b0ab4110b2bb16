package generator

import (
	"go/types"

	"github.com/invopop/jsonschema"
)

// schemaOptions are the //rpcgen:schema options of a method's schemas (its
// tool's input and output schemas and its schema files), from the method's
// directive or else its interface's.
type schemaOptions struct {
	// Dialect names the dialect at the root: "$schema" is
	// https://json-schema.org/draft/2020-12/schema.
	Dialect bool
	// Defs puts every named struct type under "$defs", referred to by
	// "$ref", instead of inlining it.
	Defs bool
}

// readSchemaOptions applies the keys of a //rpcgen:schema directive (nil:
// none) to base.
func readSchemaOptions(d *directive, base schemaOptions) schemaOptions {
	if v := d.flag("dialect"); v != nil {
		base.Dialect = *v
	}
	if v := d.flag("defs"); v != nil {
		base.Defs = *v
	}
	return base
}

// defsGen returns the schema builder for the methods with the defs option:
// one that puts named struct types under "$defs". It shares g's error
// reporting, so a problem is reported once whichever builder meets it.
func (g *schemaGen) defsGen() *schemaGen {
	if g.allDefs {
		return g
	}
	if g.withDefs == nil {
		if g.reported == nil {
			g.reported = map[string]bool{}
		}
		g.withDefs = &schemaGen{pkg: g.pkg, errs: g.errs, docs: g.docs, reported: g.reported, allDefs: true, deep: g.deep}
	}
	return g.withDefs
}

// viaDefs reports whether the named type n is described by a "$ref" into
// "$defs" rather than inline: a recursive type, or, with the defs option,
// any struct type (special types such as time.Time aside).
func (g *schemaGen) viaDefs(n *types.Named) bool {
	if g.isRecursive(n) {
		return true
	}
	if !g.allDefs {
		return false
	}
	_, isStruct := n.Underlying().(*types.Struct)
	return isStruct && g.special(n, buildCtx{}) == nil
}

// rooted finishes a root schema of m: it names the dialect when m asks for it.
func rooted(m *Method, s *jsonschema.Schema) *jsonschema.Schema {
	if s != nil && m.Schema.Dialect {
		s.Version = jsonschema.Version
	}
	return s
}
