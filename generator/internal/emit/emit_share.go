package emit

import (
	"go/types"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// Methods of a service whose params have the same shape share one params
// struct, one field list and one decode function: the same keys, Go field
// names and Go types in the same order (the type decides the schema a
// decoder validates against; a param's doc only describes it), or the same
// struct type as their single param. GetNote(id NoteID), DeleteNote(id
// NoteID) and Note(id NoteID) decode through notesIDParams and
// decodeNotesIDParams, written once.

// paramsShare is how the methods of one file name their params
// declarations.
type paramsShare struct {
	base  map[*model.Method]string         // what a method's names derive from: "NotesGetNote", or "NotesID" when shared
	users map[string][]*model.Method       // the methods of each base, in source order
	first map[*model.Method]bool           // the method that writes its base's declarations
	svc   map[*model.Method]*model.Service // each method's service
}

// shareParams names the params declarations of every method of services
// with params: by the method ("NotesGetNote") when no other method of its
// service has the same shape, else by the shape ("NotesID", from the
// params' Go names or the struct param's type), unique in the file and
// among the package's names (declared asks the package).
func shareParams(services []*model.Service, declared func(string) bool) *paramsShare {
	ps := &paramsShare{base: map[*model.Method]string{}, users: map[string][]*model.Method{},
		first: map[*model.Method]bool{}, svc: map[*model.Method]*model.Service{}}
	taken := map[string]bool{} // every method's own base: a shape's must differ
	for _, s := range services {
		for _, m := range s.Methods {
			taken[s.Name+m.Name] = true
		}
	}
	for _, s := range services {
		var order []string
		byShape := map[string][]*model.Method{}
		for _, m := range s.Methods {
			if len(m.Params) == 0 {
				continue
			}
			key := paramsShape(m)
			if byShape[key] == nil {
				order = append(order, key)
			}
			byShape[key] = append(byShape[key], m)
		}
		for _, key := range order {
			ms := byShape[key]
			base := s.Name + ms[0].Name
			if len(ms) > 1 {
				base = uniqueBase(s.Name+shapeName(ms[0]), taken, declared)
			}
			taken[base] = true
			ps.users[base] = ms
			ps.first[ms[0]] = true
			for _, m := range ms {
				ps.base[m], ps.svc[m] = base, s
			}
		}
	}
	return ps
}

// paramsShape is the shape of m's params as a string: equal strings make
// equal generated declarations.
func paramsShape(m *model.Method) string {
	var b strings.Builder
	if m.StructParams {
		t := m.Params[0].Type
		if p, ok := types.Unalias(t).(*types.Pointer); ok {
			t = p.Elem() // the decoder fills a T for a T or a *T param
		}
		b.WriteString("struct ")
		b.WriteString(types.TypeString(t, nil))
		return b.String()
	}
	for i, name := range paramFields(m) {
		p := m.Params[i]
		b.WriteString(strconv.Quote(p.JSONKey) + " " + name + " " + types.TypeString(p.Type, nil) + ";")
	}
	return b.String()
}

// shapeName spells a shared shape in Go names: the params' Go field names
// ("ID", "QueryLimit"), or the struct param's type ("NewNote").
func shapeName(m *model.Method) string {
	if m.StructParams {
		t := m.Params[0].Type
		if p, ok := types.Unalias(t).(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return exportedName(n, n.Obj().Pkg())
		}
		return m.Name
	}
	return strings.Join(paramFields(m), "")
}

// uniqueBase returns base, or base with a number, such that neither it
// nor the names derived from it are taken.
func uniqueBase(base string, taken map[string]bool, declared func(string) bool) string {
	name := base
	for n := 2; taken[name] || declared(naming.LowerFirst(name)+"Params") || declared("decode"+name+"Params"); n++ {
		name = base + strconv.Itoa(n)
	}
	return name
}

// params is the name of the params struct of m's shape (not a struct param).
func (ps *paramsShare) params(m *model.Method) string {
	return naming.LowerFirst(ps.base[m]) + "Params"
}

// fields is the name of the field list of m's shape; the decoder emitter
// still makes it unique.
func (ps *paramsShare) fields(m *model.Method) string {
	return naming.LowerFirst(ps.base[m]) + "Fields"
}

// decode is the name of the decode function of m's shape:
// func <name>(raw []byte, p *<params type>) error, where the params type is
// the struct param's type when m.StructParams, else m's params struct.
func (ps *paramsShare) decode(m *model.Method) string {
	return "decode" + ps.base[m] + "Params"
}

// methods lists the methods sharing m's declarations for a doc comment:
// "Notes.GetNote", or "Notes.GetNote, Notes.DeleteNote and Notes.Note".
func (ps *paramsShare) methods(m *model.Method) string {
	ms := ps.users[ps.base[m]]
	names := make([]string, len(ms))
	for i, u := range ms {
		names[i] = ps.svc[u].Name + "." + u.Name
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// shared reports whether m's params declarations serve other methods too.
func (ps *paramsShare) shared(m *model.Method) bool { return len(ps.users[ps.base[m]]) > 1 }

// wrapComment splits text into comment lines of at most about 77 columns,
// at spaces.
func wrapComment(text string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > 77 {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
