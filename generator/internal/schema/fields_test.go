package schema

import (
	"fmt"
	"go/types"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

func TestFieldsOf(t *testing.T) {
	src := `package p

type Base struct {
	ID   string ` + "`json:\"id\"`" + `
	Name string
	hidden int
}

type Other struct {
	Name string
	Tagged int ` + "`json:\"tagged\"`" + `
}

type More struct {
	Tagged int ` + "`json:\"tagged\"`" + `
	Extra  bool
}

type Label string

type inner struct{ Deep int }

type T struct {
	Base
	*Other
	More
	inner
	Label
	Own     string  ` + "`json:\"own,omitempty\"`" + `
	Zero    int     ` + "`json:\",omitzero\"`" + `
	Skip    int     ` + "`json:\"-\"`" + `
	Dash    int     ` + "`json:\"-,\"`" + `
	Count   int64   ` + "`json:\"count,string\"`" + `
	Ptr     *int    ` + "`json:\"ptr\"`" + `
	Must    *int    ` + "`json:\"must\" jsonschema:\"required\"`" + `
	BadName int     ` + "`json:\"a\\\\b\"`" + `
	private int
}
`
	pkg, _, _ := goldentest.CheckSource(t, src)
	st := pkg.Scope().Lookup("T").Type().Underlying().(*types.Struct)
	g := &Builder{}
	fields, err := g.FieldsOf(st)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fields {
		got = append(got, fmt.Sprintf("%s=%s%v req=%v ptr=%v s=%v", f.Key, strings.Join(f.Names, "."), f.Index, f.Required, f.EmbedPtr, f.String))
	}
	want := []string{
		"id=Base.ID[0 0] req=true ptr=[false false] s=false",
		// Name is ambiguous between Base and Other: both untagged at depth 2.
		"Extra=More.Extra[2 1] req=true ptr=[false false] s=false",
		"Deep=inner.Deep[3 0] req=true ptr=[false false] s=false",
		"Label=Label[4] req=true ptr=[false] s=false",
		"own=Own[5] req=false ptr=[false] s=false",
		"Zero=Zero[6] req=false ptr=[false] s=false",
		"-=Dash[8] req=true ptr=[false] s=false",
		"count=Count[9] req=true ptr=[false] s=true",
		"ptr=Ptr[10] req=false ptr=[false] s=false",
		"must=Must[11] req=true ptr=[false] s=false",
		"BadName=BadName[12] req=true ptr=[false] s=false",
	}
	// "tagged" is tagged in both Other and More at the same depth: dropped.
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFieldsOfDominance(t *testing.T) {
	src := `package p

type A struct {
	X int
	Y int ` + "`json:\"y\"`" + `
}
type B struct {
	X int ` + "`json:\"X\"`" + `
	y int
	Z int
}
type C struct {
	*A
	B
	Z string
}
`
	pkg, _, _ := goldentest.CheckSource(t, src)
	st := pkg.Scope().Lookup("C").Type().Underlying().(*types.Struct)
	fields, err := (&Builder{}).FieldsOf(st)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fields {
		got = append(got, fmt.Sprintf("%s=%s req=%v ptr=%v", f.Key, strings.Join(f.Names, "."), f.Required, f.EmbedPtr))
	}
	// X: tagged in B beats untagged in A at equal depth; Z: the shallow one wins.
	want := "y=A.Y req=false ptr=[true false]\nX=B.X req=true ptr=[false false]\nZ=Z req=true ptr=[false]"
	if strings.Join(got, "\n") != want {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}
