package schema

import (
	"encoding/json"
	"go/constant"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// EnumOf returns the values of the constants of the named string or integer
// type t (or *t) declared in its package, in declaration order without
// repeats, and the constants themselves; nothing for a standard library
// type. Values are strings or json.Numbers.
func (g *Builder) EnumOf(t types.Type) ([]any, []*types.Const) {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, ok := t.(*types.Named)
	if !ok {
		return nil, nil
	}
	// Scanning a package's scope is the costly part; a type's enum is asked
	// for at every use.
	if e, ok := g.enums[n]; ok {
		return e.values, e.consts
	}
	values, consts := g.findEnum(n)
	if g.enums == nil {
		g.enums = map[*types.Named]enumInfo{}
	}
	g.enums[n] = enumInfo{values, consts}
	return values, consts
}

// enumInfo is what enumOf found for one type.
type enumInfo struct {
	values []any
	consts []*types.Const
}

func (g *Builder) findEnum(n *types.Named) ([]any, []*types.Const) {
	if n.Obj().Pkg() == nil || isStdlib(model.PkgPath(n)) {
		// The standard library's constants are often units or flags
		// (time.Hour, fs.ModeDir), not the values a type may take.
		return nil, nil
	}
	b, ok := n.Underlying().(*types.Basic)
	if !ok || b.Info()&(types.IsString|types.IsInteger) == 0 {
		return nil, nil
	}
	scope := n.Obj().Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		if k, ok := scope.Lookup(name).(*types.Const); ok && name != "_" && types.Identical(k.Type(), n) {
			consts = append(consts, k)
		}
	}
	slices.SortFunc(consts, func(a, b *types.Const) int {
		pa, pb := g.Position(a.Pos()), g.Position(b.Pos())
		if pa.Filename != pb.Filename {
			return strings.Compare(pa.Filename, pb.Filename)
		}
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Column - pb.Column
	})
	var vals []any
	var kept []*types.Const
	seen := map[string]bool{}
	for _, k := range consts {
		v := k.Val()
		if v.Kind() == constant.Unknown {
			// Its declaration has a type error, which the package's
			// build reports; it is no value the type may take.
			continue
		}
		if seen[v.ExactString()] {
			continue
		}
		seen[v.ExactString()] = true
		kept = append(kept, k)
		if v.Kind() == constant.String {
			vals = append(vals, constant.StringVal(v))
		} else {
			vals = append(vals, json.Number(v.ExactString()))
		}
	}
	return vals, kept
}

// EnumNotes describes each documented constant of an enum type, one
// "value: doc" line each. The docs go into the description rather than into
// "oneOf":[{"const":…,"description":…}]: a 2020-12 validator ignores a
// description, a model reads it, the schema stays one plain "enum" that
// generated validation reads, and no branch of a oneOf can fail to match.
func (g *Builder) EnumNotes(t types.Type) string {
	_, consts := g.EnumOf(t)
	var lines []string
	for _, k := range consts {
		doc := model.OneLine(g.Docs.doc(docConst, k.Pos()))
		if doc == "" {
			continue
		}
		v := k.Val().ExactString()
		if k.Val().Kind() == constant.String {
			v = constant.StringVal(k.Val())
			if v == "" || strings.ContainsAny(v, " :\"\n") {
				v = strconv.Quote(v)
			}
		}
		lines = append(lines, v+": "+strings.ReplaceAll(doc, "\n\n", " "))
	}
	return strings.Join(lines, "\n")
}

// WithEnumNotes appends notes, one line per enum value, to the
// description desc.
func WithEnumNotes(desc, notes string) string {
	switch {
	case notes == "":
		return desc
	case desc == "":
		return notes
	}
	return desc + "\n" + notes
}

// isStdlib reports whether path is a standard library package: its first
// element has no dot.
func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
