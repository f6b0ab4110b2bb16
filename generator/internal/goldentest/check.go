package goldentest

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/rpcgen/rpcgen/internal/diff"
)

// CheckSource type-checks one file of package p and returns it.
func CheckSource(t *testing.T, src string) (*types.Package, *token.FileSet, *ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg, fset, f
}

// Diff shows how got differs from want, as a unified diff.
func Diff(got, want []byte) string {
	return diff.Unified("want", "got", string(want), string(got))
}
