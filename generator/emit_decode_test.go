package generator

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

// TestDecodersRun generates code for testdata/decoderun/shop.go in a
// module of its own and runs decode_test.go there: table-driven inputs
// through the generated decode functions, asserting the exact messages a
// caller gets, the decoded values, and the allocations.
func TestDecodersRun(t *testing.T) {
	runGeneratedTests(t, "decoderun", "shop", "Shop", []string{"shop.go", "decode_test.go"}, func(path string, src []byte) {
		if !bytes.Contains(src, []byte("func decodeShopSearchParams(")) {
			t.Fatalf("%s holds no decoder for Shop.Search", path)
		}
	})
}

// runGeneratedTests copies files from testdata/<from> into package pkg of a
// module of its own, generates iface's code there, calls check on each
// generated file, and runs the package's tests, which exercise the generated
// code: the test fails with their output when they do.
func runGeneratedTests(t *testing.T, from, pkg, iface string, files []string, check func(path string, src []byte)) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a module")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeGoldenModule(t, root, repo)
	dir := filepath.Join(root, pkg)
	for _, name := range files {
		src, err := os.ReadFile(filepath.Join(repo, "testdata", from, name))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, name), src)
	}
	generated, err := Generate(Config{Dir: dir, Interfaces: []string{iface}})
	if err != nil {
		t.Fatal(err)
	}
	for path, src := range generated {
		mustWrite(t, path, src)
		if check != nil {
			check(path, src)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "./"+pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the generated %s code failed: %v\n%s", pkg, err, out)
	}
}

func decodersOnly(dir string, ifaces ...string) ([]byte, error) {
	pkg, typeErrs, err := loadPackage(dir, filepath.Join(dir, "decoders_rpcgen.go"), nil)
	if err != nil {
		return nil, err
	}
	services, err := buildServices(pkg, ifaces, typeErrs)
	if err != nil {
		return nil, err
	}
	errs := &errorCollector{fset: pkg.Fset}
	sg := newSchemaGen(pkg, errs)
	f := jen.NewFilePathName(pkg.PkgPath, pkg.Name)
	de := newDecodeEmitter(f, sg)
	for _, s := range services {
		for _, m := range s.Methods {
			de.emit(s, m)
		}
	}
	if err := errs.err(); err != nil {
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
	repo, _ := filepath.Abs("..")
	writeGoldenModule(t, dir, repo)
	mustWrite(t, filepath.Join(dir, "p.go"), []byte(`package p

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
	list, ok := err.(ErrorList)
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
	repo, _ := filepath.Abs("..")
	writeGoldenModule(t, dir, repo)
	mustWrite(t, filepath.Join(dir, "p.go"), []byte(`package p

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
		"func readPageItem(d *runtime.Decoder, p *Page[Item])",
		"func readItem2(d *runtime.Decoder, p *Item)",
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
