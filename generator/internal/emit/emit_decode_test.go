package emit

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

func decodersOnly(dir string, ifaces ...string) ([]byte, error) {
	pkg, typeErrs, err := load.Load(dir, filepath.Join(dir, "decoders_rpcgen.go"), nil)
	if err != nil {
		return nil, err
	}
	services, err := model.Build(pkg, ifaces, typeErrs)
	if err != nil {
		return nil, err
	}
	errs := &diag.Collector{Fset: pkg.Fset}
	sg := schema.NewBuilder(pkg, errs)
	f := jen.NewFilePathName(pkg.PkgPath, pkg.Name)
	de := newDecodeEmitter(f, sg)
	de.share = shareParams(services, de.declared)
	for _, s := range services {
		for _, m := range s.Methods {
			if de.share.first[m] {
				de.emit(s, m)
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TestDecodersGenerateErrors checks the constraints the generator cannot
// turn into code: each is a positioned error, all reported at once.
func TestDecodersGenerateErrors(t *testing.T) {
	dir := t.TempDir()
	repo, _ := goldentest.RepoRoot()
	goldentest.WriteModule(t, dir, repo)
	goldentest.MustWrite(t, filepath.Join(dir, "p.go"), []byte(`package p

type S interface {
	Do(in In) error
}

type In struct {
	Small uint8   `+"`json:\"small\" jsonschema:\"minimum=300\"`"+`
	Neg   uint    `+"`json:\"neg\" jsonschema:\"maximum=-1\"`"+`
	Refs  []*int  `+"`json:\"refs\" jsonschema:\"uniqueItems=true\"`"+`
	Fine  int8    `+"`json:\"fine\" jsonschema:\"minimum=-1000,maximum=1000\"`"+`
}
`))
	_, err := decodersOnly(dir, "S")
	list, ok := err.(diag.List)
	if !ok {
		t.Fatalf("got %v, want an error list", err)
	}
	got := list.Format(dir)
	want := `p.go:8:2: minimum 300: no uint8 can meet it
p.go:9:2: maximum -1: no uint can meet it
p.go:10:2: uniqueItems needs items that compare by value; *int does not
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDecodeNames(t *testing.T) {
	dir := t.TempDir()
	repo, _ := goldentest.RepoRoot()
	goldentest.WriteModule(t, dir, repo)
	goldentest.MustWrite(t, filepath.Join(dir, "p.go"), []byte(`package p

type S interface {
	A(page Page[Item], n int) error
	B(in Item) error
}

type Page[T any] struct {
	Items []T `+"`json:\"items\"`"+`
}

type Item struct {
	Name string `+"`json:\"name\"`"+`
}

// readItem is the user's own: the helper must take another name.
func readItem() {}
`))
	src, err := decodersOnly(dir, "S")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"func decodeSA", "func decodeSBParams(raw []byte, p *Item) error",
		"func readPageItem(d *rpcimpl.Decoder, p *Page[Item])",
		"func readItem2(d *rpcimpl.Decoder, p *Item)",
		"readItem2(&d, p)", "readItem2(d, &elem)",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("no %q in\n%s", want, src)
		}
	}
	if n := strings.Count(string(src), "func readItem2("); n != 1 {
		t.Errorf("readItem2 written %d times", n)
	}
}
