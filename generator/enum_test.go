package generator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestEnumConstantWithTypeError: a constant whose declaration does not
// type-check has no value; the enum leaves it out instead of the generator
// panicking on it (a random edit found this).
func TestEnumConstantWithTypeError(t *testing.T) {
	root := t.TempDir()
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	goldentest.WriteModule(t, root, repo)
	dir := filepath.Join(root, "p")
	goldentest.MustWrite(t, filepath.Join(dir, "p.go"), []byte(`package p

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
