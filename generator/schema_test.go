package generator

import (
	"encoding/json"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
)

// loadSchemaPkg writes src as the only file of a module and loads it.
func loadSchemaPkg(t *testing.T, src string) (*schemaGen, *errorCollector, *types.Scope) {
	t.Helper()
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "go.mod"), []byte("module example.com/p\n\ngo 1.26.0\n"))
	mustWrite(t, filepath.Join(dir, "p.go"), []byte(src))
	pkg, typeErrs, err := loadPackage(dir, filepath.Join(dir, "p_rpcgen.go"), nil)
	if err != nil || len(typeErrs) > 0 {
		t.Fatalf("load: %v %v", err, typeErrs)
	}
	errs := &errorCollector{fset: pkg.Fset}
	return newSchemaGen(pkg, errs), errs, pkg.Types.Scope()
}

const schemaSrc = `package p

// Level is how loud.
type Level int

const (
	// Quiet is silent.
	Quiet Level = iota
	Loud
)

// Node is recursive.
type Node struct {
	Kids []Node ` + "`json:\"kids\"`" + `
	Level Level ` + "`json:\"level\" jsonschema:\"Loudness.\"`" + `
}

// Flat is not.
type Flat struct {
	N *int ` + "`json:\"n\"`" + `
	F func() ` + "`json:\"f\"`" + `
	C complex64 ` + "`json:\"c\"`" + `
	Bad string ` + "`json:\"bad\" jsonschema:\"minimum=1\"`" + `
}
`

func TestSchemaKeyFacts(t *testing.T) {
	g, errs, scope := loadSchemaPkg(t, schemaSrc)
	node := scope.Lookup("Node").Type()

	// A recursive type is a $ref wherever it is used, but a root inlines it
	// (so that it says "type":"object") and carries exactly its $defs.
	if s := g.schemaOf(node); s.Ref != "#/$defs/Node" {
		t.Errorf("schemaOf(Node) = %s, want a $ref", marshalSchema(s))
	}
	m := &Method{Name: "Put", StructParams: true, Params: []*Param{{Name: "n", JSONKey: "n", Type: node}}}
	in := g.inputSchema(m)
	if in.Type != "object" || in.AdditionalProperties != jsonschema.FalseSchema || len(in.Definitions) != 1 || in.Definitions["Node"] == nil {
		t.Errorf("input schema of a recursive root: %s", marshalSchema(in))
	}
	level, _ := in.Properties.Get("level")
	if level.Description != "Loudness." || len(level.Enum) != 2 || level.Enum[0] != json.Number("0") {
		t.Errorf("level: %s", marshalSchema(level))
	}

	// A flat root has no $defs although the generator has built some.
	flat := &Method{Name: "Flat", Params: []*Param{{Name: "x", JSONKey: "x", Type: types.Typ[types.String]}}, Result: types.NewSlice(types.Typ[types.Int])}
	if s := g.inputSchema(flat); s.Definitions != nil || strings.Join(s.Required, ",") != "x" {
		t.Errorf("flat input: %s", marshalSchema(s))
	}
	out, wrapped := g.outputSchema(flat)
	if !wrapped || out.Type != "object" || strings.Join(out.Required, ",") != "result" {
		t.Errorf("non-object result must be wrapped: %v %s", wrapped, marshalSchema(out))
	}
	if r := g.resultSchema(flat); len(r.AnyOf) != 2 || r.AnyOf[1].Type != "null" {
		t.Errorf("a nil slice result may be null: %s", marshalSchema(r))
	}
	if s, _ := g.outputSchema(&Method{Name: "None"}); s != nil {
		t.Errorf("no result, yet an output schema %s", marshalSchema(s))
	}

	// Unsupported types and bad tags are positioned errors naming the field.
	_ = g.schemaOf(scope.Lookup("Flat").Type())
	var msgs []string
	for _, e := range errs.list {
		if !e.Pos.IsValid() {
			t.Errorf("unpositioned error %q", e.Msg)
		}
		msgs = append(msgs, e.Msg)
	}
	want := []string{
		"Flat.F: func() cannot be represented in JSON Schema (a function cannot be sent as JSON)",
		"Flat.C: complex64 cannot be represented in JSON Schema (JSON has no complex numbers)",
		`Flat.Bad: jsonschema tag "minimum=1": minimum applies to integer or number, not to a string`,
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	// Each problem is reported once, however often the type is used.
	_ = g.schemaOf(scope.Lookup("Flat").Type())
	if len(errs.list) != len(want) {
		t.Errorf("%d errors after a second use, want %d", len(errs.list), len(want))
	}
}

func TestMarshalSchema(t *testing.T) {
	props := jsonschema.NewProperties()
	props.Set("z", &jsonschema.Schema{})
	props.Set("a", &jsonschema.Schema{Type: "string", Pattern: "<&>"})
	s := &jsonschema.Schema{
		Properties:           props,
		Type:                 "object",
		Description:          "d",
		AdditionalProperties: jsonschema.FalseSchema,
		Required:             []string{"a"},
		Definitions:          jsonschema.Definitions{"B": {Type: "integer"}, "A": jsonschema.TrueSchema},
	}
	got := string(marshalSchema(s))
	want := `{"description":"d","type":"object","properties":{"z":{},"a":{"type":"string","pattern":"<&>"}},"additionalProperties":false,"required":["a"],"$defs":{"A":true,"B":{"type":"integer"}}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if pretty := string(prettySchema(s)); !strings.HasPrefix(pretty, "{\n  \"description\": \"d\",") || !strings.HasSuffix(pretty, "}\n") {
		t.Errorf("pretty:\n%s", pretty)
	}
}

func TestSplitParamDocs(t *testing.T) {
	doc := `Lend lends a book.

Note: this is prose.

book: the book.
- member: who borrows it,
  over two lines.
* days: how long.
other: not a param.

It returns the due date.`
	params := []*Param{{Name: "book", JSONKey: "book"}, {Name: "member", JSONKey: "member"}, {Name: "days", JSONKey: "d"}}
	rest := splitParamDocs(doc, params)
	wantRest := "Lend lends a book.\n\nNote: this is prose.\n\nIt returns the due date."
	if rest != wantRest {
		t.Errorf("rest:\n%q\nwant\n%q", rest, wantRest)
	}
	for i, want := range []string{"the book.", "who borrows it, over two lines.", "how long. other: not a param."} {
		if params[i].Doc != want {
			t.Errorf("%s: %q, want %q", params[i].Name, params[i].Doc, want)
		}
	}
	if got := splitParamDocs("No params here: none.", params); got != "No params here: none." {
		t.Errorf("prose changed: %q", got)
	}
}

func TestDocIndexOtherPackage(t *testing.T) {
	// Declarations from export data have a line but no column; their docs
	// are still found, and the standard library's are left out.
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.26.0\n"))
	mustWrite(t, filepath.Join(dir, "dep", "dep.go"), []byte("package dep\n\n// T doc.\ntype T struct {\n\t// F doc.\n\tF int\n\tG int // G comment.\n}\n"))
	mustWrite(t, filepath.Join(dir, "a.go"), []byte("package a\n\nimport (\n\t\"time\"\n\n\t\"x/dep\"\n)\n\nvar V dep.T\nvar D time.Duration\n"))
	pkg, _, err := loadPackage(dir, filepath.Join(dir, "gen.go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gen.go")); err == nil {
		t.Fatal("loading wrote a file")
	}
	g := newSchemaGen(pkg, &errorCollector{fset: pkg.Fset})
	s := g.schemaOf(pkg.Types.Scope().Lookup("V").Type())
	f, _ := s.Properties.Get("F")
	gg, _ := s.Properties.Get("G")
	if s.Description != "T doc." || f.Description != "F doc." || gg.Description != "G comment." {
		t.Errorf("docs from another package: %s", marshalSchema(s))
	}
	if d := g.schemaOf(pkg.Types.Scope().Lookup("D").Type()); d.Description != "" || d.Type != "integer" {
		t.Errorf("time.Duration: %s", marshalSchema(d))
	}
}

// TestEnumConstantWithTypeError: a constant whose declaration does not
// type-check has no value; the enum leaves it out instead of the generator
// panicking on it (a random edit found this).
func TestEnumConstantWithTypeError(t *testing.T) {
	root := t.TempDir()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	writeGoldenModule(t, root, repo)
	dir := filepath.Join(root, "p")
	mustWrite(t, filepath.Join(dir, "p.go"), []byte(`package p

import "context"

// Size is a size.
type Size int

const (
	Small Size = 1
	Large Size = undefinedValue
)

// Shop sells.
type Shop interface {
	// Pick picks a size.
	Pick(ctx context.Context, s Size) (Size, error)
}
`))
	files, err := Generate(Config{Dir: dir, Interfaces: []string{"Shop"}, Output: "shop_rpcgen.go"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(files[filepath.Join(dir, "shop_rpcgen.go")])
	if !strings.Contains(src, `"enum":[1]}`) {
		t.Errorf("the enum should hold the one constant with a value:\n%s", src)
	}
}
