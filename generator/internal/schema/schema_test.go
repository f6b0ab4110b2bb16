package schema

import (
	"encoding/json"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/generator/internal/model"
)

// loadSchemaPkg writes src as the only file of a module and loads it.
func loadSchemaPkg(t *testing.T, src string) (*Builder, *diag.Collector, *types.Scope) {
	t.Helper()
	dir := t.TempDir()
	goldentest.MustWrite(t, filepath.Join(dir, "go.mod"), []byte("module example.com/p\n\ngo 1.26.0\n"))
	goldentest.MustWrite(t, filepath.Join(dir, "p.go"), []byte(src))
	pkg, typeErrs, err := load.Load(dir, filepath.Join(dir, "p_rpcgen.go"), nil)
	if err != nil || len(typeErrs) > 0 {
		t.Fatalf("load: %v %v", err, typeErrs)
	}
	errs := &diag.Collector{Fset: pkg.Fset}
	return NewBuilder(pkg, errs), errs, pkg.Types.Scope()
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
		t.Errorf("schemaOf(Node) = %s, want a $ref", Marshal(s))
	}
	m := &model.Method{Name: "Put", StructParams: true, Params: []*model.Param{{Name: "n", JSONKey: "n", Type: node}}}
	in := g.InputSchema(m)
	if in.Type != "object" || in.AdditionalProperties != jsonschema.FalseSchema || len(in.Definitions) != 1 || in.Definitions["Node"] == nil {
		t.Errorf("input schema of a recursive root: %s", Marshal(in))
	}
	level, _ := in.Properties.Get("level")
	if level.Description != "Loudness." || len(level.Enum) != 2 || level.Enum[0] != json.Number("0") {
		t.Errorf("level: %s", Marshal(level))
	}

	// A flat root has no $defs although the generator has built some.
	flat := &model.Method{Name: "Flat", Params: []*model.Param{{Name: "x", JSONKey: "x", Type: types.Typ[types.String]}}, Result: types.NewSlice(types.Typ[types.Int])}
	if s := g.InputSchema(flat); s.Definitions != nil || strings.Join(s.Required, ",") != "x" {
		t.Errorf("flat input: %s", Marshal(s))
	}
	out, wrapped := g.OutputSchema(flat)
	if !wrapped || out.Type != "object" || strings.Join(out.Required, ",") != "result" {
		t.Errorf("non-object result must be wrapped: %v %s", wrapped, Marshal(out))
	}
	if r := g.ResultSchema(flat); len(r.AnyOf) != 2 || r.AnyOf[1].Type != "null" {
		t.Errorf("a nil slice result may be null: %s", Marshal(r))
	}
	if s, _ := g.OutputSchema(&model.Method{Name: "None"}); s != nil {
		t.Errorf("no result, yet an output schema %s", Marshal(s))
	}

	// Unsupported types and bad tags are positioned errors naming the field.
	_ = g.schemaOf(scope.Lookup("Flat").Type())
	var msgs []string
	for _, e := range errs.List {
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
	if len(errs.List) != len(want) {
		t.Errorf("%d errors after a second use, want %d", len(errs.List), len(want))
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
	got := string(Marshal(s))
	want := `{"description":"d","type":"object","properties":{"z":{},"a":{"type":"string","pattern":"<&>"}},"additionalProperties":false,"required":["a"],"$defs":{"A":true,"B":{"type":"integer"}}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if pretty := string(Pretty(s)); !strings.HasPrefix(pretty, "{\n  \"description\": \"d\",") || !strings.HasSuffix(pretty, "}\n") {
		t.Errorf("pretty:\n%s", pretty)
	}
}

func TestDocIndexOtherPackage(t *testing.T) {
	// Declarations from export data have a line but no column; their docs
	// are still found, and the standard library's are left out.
	dir := t.TempDir()
	goldentest.MustWrite(t, filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.26.0\n"))
	goldentest.MustWrite(t, filepath.Join(dir, "dep", "dep.go"), []byte("package dep\n\n// T doc.\ntype T struct {\n\t// F doc.\n\tF int\n\tG int // G comment.\n}\n"))
	goldentest.MustWrite(t, filepath.Join(dir, "a.go"), []byte("package a\n\nimport (\n\t\"time\"\n\n\t\"x/dep\"\n)\n\nvar V dep.T\nvar D time.Duration\n"))
	pkg, _, err := load.Load(dir, filepath.Join(dir, "gen.go"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gen.go")); err == nil {
		t.Fatal("loading wrote a file")
	}
	g := NewBuilder(pkg, &diag.Collector{Fset: pkg.Fset})
	s := g.schemaOf(pkg.Types.Scope().Lookup("V").Type())
	f, _ := s.Properties.Get("F")
	gg, _ := s.Properties.Get("G")
	if s.Description != "T doc." || f.Description != "F doc." || gg.Description != "G comment." {
		t.Errorf("docs from another package: %s", Marshal(s))
	}
	// time.Duration's doc is not the standard library's but rpcgen's, which
	// states the unit.
	if d := g.schemaOf(pkg.Types.Scope().Lookup("D").Type()); !strings.Contains(d.Description, "nanoseconds") || strings.Contains(d.Description, "elapsed time") || d.Type != "integer" {
		t.Errorf("time.Duration: %s", Marshal(d))
	}
}
