package schema

import (
	"cmp"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// Field is one JSON object member of a Go struct, after encoding/json's
// rules (tags, "-", embedded structs flattened incl. pointer embeds, the
// dominant-field rule, unexported fields skipped).
type Field struct {
	Key   string   // JSON key
	Index []int    // field index path through embedded structs (as reflect.FieldByIndex)
	Names []string // Go field names along Index, e.g. ["Base","ID"] (for emitting p.Base.ID)
	// EmbedPtr[i] is true when Names[i] (i < len-1) is an embedded *pointer*
	// struct; the last element is always false.
	EmbedPtr []bool
	Type     types.Type // the field's type
	// Required is true when the field has neither omitempty nor omitzero,
	// is not a pointer, and is not reached through an embedded pointer
	// (encoding/json leaves it out when that pointer is nil); a
	// `jsonschema:"required"` tag makes any field required.
	Required bool
	// Tag options: omitempty, omitzero, and ",string" (only recorded where
	// encoding/json honours it: bool, integer, float and string fields,
	// possibly behind one pointer).
	OmitEmpty, OmitZero, String bool
	Tag                         reflect.StructTag
	Pos                         token.Position
	Doc                         string // doc or line comment text
}

// fieldCandidate is a field found while walking embedded structs, before
// the dominant-field rule picks one per key.
type fieldCandidate struct {
	Field
	tagged bool // the key came from a json tag
}

// embedLevel is a struct reached through embedded fields.
type embedLevel struct {
	st       *types.Struct
	typeKey  string // identity of the struct's type, to visit each once
	index    []int
	names    []string
	embedPtr []bool
	viaPtr   bool // some embedded field on the way is a pointer
}

// FieldsOf returns the JSON members of st in field order, as encoding/json
// would encode them. The error is reserved for fields it cannot describe;
// encoding/json's own rules never fail.
func (g *Builder) FieldsOf(st *types.Struct) ([]Field, error) {
	// Breadth-first over embedding depth, as encoding/json's typeFields.
	w := &fieldWalk{g: g, visited: map[string]bool{}}
	var current []embedLevel
	next := []embedLevel{{st: st, typeKey: types.TypeString(st, nil)}}
	w.nextCount = map[string]int{}
	for len(next) > 0 {
		current, w.next = next, current[:0]
		w.count, w.nextCount = w.nextCount, map[string]int{}
		for _, lv := range current {
			w.level(lv)
		}
		next = w.next
	}
	return dominantFields(w.found), nil
}

// fieldWalk is the state of FieldsOf's walk over one depth of embedding.
type fieldWalk struct {
	g       *Builder
	visited map[string]bool // struct types already walked
	// count is how many times each struct type is reached at the current
	// depth, nextCount the same for the next; next lists the structs
	// embedded at the next depth.
	count, nextCount map[string]int
	next             []embedLevel
	found            []fieldCandidate
}

// level adds the fields of the struct at lv, and queues the structs it
// embeds without a name for the next depth.
func (w *fieldWalk) level(lv embedLevel) {
	if w.visited[lv.typeKey] {
		return
	}
	w.visited[lv.typeKey] = true
	for i := range lv.st.NumFields() {
		sf := lv.st.Field(i)
		tag := reflect.StructTag(lv.st.Tag(i))
		if !jsonVisible(sf) {
			continue
		}
		jt := tag.Get("json")
		if jt == "-" {
			continue
		}
		name, opts, _ := strings.Cut(jt, ",")
		if !validJSONTagName(name) {
			name = ""
		}
		index := append(slices.Clone(lv.index), i)
		names := append(slices.Clone(lv.names), sf.Name())

		ft := types.Unalias(sf.Type())
		ptr, isPtr := ft.(*types.Pointer)
		if isPtr {
			ft = types.Unalias(ptr.Elem())
		}
		if name != "" || !sf.Embedded() || !isStructType(ft) {
			w.add(lv, w.candidate(lv, sf, tag, name, opts, index, names, ft, isPtr))
			continue
		}
		key := types.TypeString(ft, nil)
		w.nextCount[key]++
		if w.nextCount[key] == 1 {
			w.next = append(w.next, embedLevel{
				st:       ft.Underlying().(*types.Struct),
				typeKey:  key,
				index:    index,
				names:    names,
				embedPtr: append(slices.Clone(lv.embedPtr), isPtr),
				viaPtr:   lv.viaPtr || isPtr,
			})
		}
	}
}

// jsonVisible reports whether encoding/json looks at the struct field sf:
// exported, or an embedded struct (whose exported fields are promoted).
func jsonVisible(sf *types.Var) bool {
	if !sf.Embedded() {
		return sf.Exported()
	}
	t := types.Unalias(sf.Type())
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	return sf.Exported() || isStructType(t) // encoding/json ignores unexported non-struct embeds
}

// candidate describes the field sf of the struct at lv as a member named
// name (the Go name when "").
func (w *fieldWalk) candidate(lv embedLevel, sf *types.Var, tag reflect.StructTag, name, opts string, index []int, names []string, ft types.Type, isPtr bool) fieldCandidate {
	f := fieldCandidate{tagged: name != ""}
	if name == "" {
		name = sf.Name()
	}
	f.Key = name
	f.Index = index
	f.Names = names
	f.EmbedPtr = append(slices.Clone(lv.embedPtr), false)
	f.Type = sf.Type()
	f.Tag = tag
	f.Pos = w.g.Position(sf.Pos())
	f.Doc = w.g.Docs.doc(docField, sf.Pos())
	f.OmitEmpty = hasTagOption(opts, "omitempty")
	f.OmitZero = hasTagOption(opts, "omitzero")
	f.String = hasTagOption(opts, "string") && quotable(ft)
	f.Required = !f.OmitEmpty && !f.OmitZero && !isPtr && !lv.viaPtr || schemaTagRequired(tag)
	return f
}

func (w *fieldWalk) add(lv embedLevel, f fieldCandidate) {
	w.found = append(w.found, f)
	if w.count[lv.typeKey] > 1 {
		// The same struct embedded twice at one depth: its fields
		// annihilate each other, as in encoding/json.
		w.found = append(w.found, f)
	}
}

// dominantFields groups found by key and keeps, per key, the shallowest
// field, a tagged one at equal depth; two equally good fields hide each
// other. The result is in field order.
func dominantFields(found []fieldCandidate) []Field {
	slices.SortStableFunc(found, func(a, b fieldCandidate) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.Index), len(b.Index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.Index, b.Index)
	})
	var out []Field
	for i := 0; i < len(found); {
		j := i + 1
		for j < len(found) && found[j].Key == found[i].Key {
			j++
		}
		group := found[i:j]
		if len(group) == 1 || len(group[0].Index) < len(group[1].Index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0].Field)
		}
		i = j
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.Index, b.Index) })
	return out
}

func isStructType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

// quotable reports whether encoding/json honours ",string" on a field of
// type t (already stripped of one pointer): a bool, number or string that
// does not encode itself (a MarshalJSON or MarshalText writes what it
// writes, quoted or not).
func quotable(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	if kind, _ := model.EncodingOf(t); kind != model.EncodesNone {
		return false
	}
	return ok && b.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0
}

func hasTagOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validJSONTagName is encoding/json's isValidTag: a name it accepts as a key.
func validJSONTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			// Backslash and quote chars are reserved, but otherwise any
			// punctuation chars are allowed in a tag name.
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// schemaTagRequired reports whether a `jsonschema` tag holds the bare
// "required" flag (invopop's grammar).
func schemaTagRequired(tag reflect.StructTag) bool {
	return slices.Contains(splitSchemaTag(tag.Get("jsonschema")), "required")
}

// splitSchemaTag splits a `jsonschema` tag on commas not preceded by a
// backslash, as invopop does; "\," stands for a comma inside a value.
func splitSchemaTag(s string) []string {
	if s == "" {
		return nil
	}
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ',':
			cur.WriteByte(',')
			i++
		case s[i] == ',':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(parts, cur.String())
}
