package schema

import (
	"go/types"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// defsGen returns the schema builder for the methods with the defs option:
// one that puts named struct types under "$defs". It shares g's error
// reporting, so a problem is reported once whichever builder meets it.
func (g *Builder) defsGen() *Builder {
	if g.allDefs {
		return g
	}
	if g.withDefs == nil {
		if g.reported == nil {
			g.reported = map[string]bool{}
		}
		g.withDefs = &Builder{Pkg: g.Pkg, errs: g.errs, Docs: g.Docs, reported: g.reported, allDefs: true, Deep: g.Deep,
			TypeSchemas: g.TypeSchemas}
	}
	return g.withDefs
}

// viaDefs reports whether the named type n is described by a "$ref" into
// "$defs" rather than inline: a recursive type, or, with the defs option,
// any struct type (special types such as time.Time aside).
func (g *Builder) viaDefs(n *types.Named) bool {
	if g.IsRecursive(n) {
		return true
	}
	if !g.allDefs {
		return false
	}
	_, isStruct := n.Underlying().(*types.Struct)
	return isStruct && g.Special(n, BuildCtx{}) == nil
}

// rooted finishes a root schema of m: it names the dialect when m asks for it.
func rooted(m *model.Method, s *jsonschema.Schema) *jsonschema.Schema {
	if s != nil && m.Schema.Dialect {
		s.Version = jsonschema.Version
	}
	return s
}
