package generator

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// checkOutputDir refuses an output in another package's directory: a Go
// package is one directory, so a file generated for package pkgName in dir
// but written where other Go files are would join their package (a file of
// package todo among package expose's files does not compile). An output
// in a directory without Go files (a scratch file) is allowed. The problem
// is reported at the package clause of a Go file there.
func checkOutputDir(fset *token.FileSet, dir, out, pkgName string) error {
	outDir := filepath.Dir(out)
	if outDir == dir {
		return nil
	}
	ents, err := os.ReadDir(outDir)
	if err != nil {
		return nil // the output's directory does not exist yet: nothing to join
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && n != filepath.Base(out) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		path := filepath.Join(outDir, n)
		f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		rel := out
		if r, err := filepath.Rel(dir, out); err == nil {
			rel = filepath.ToSlash(r)
		}
		msg := fmt.Sprintf("the output %s, generated for package %s, would be a file of the package in this directory", rel, pkgName)
		if f.Name.Name != pkgName {
			msg = fmt.Sprintf("the output %s would be package %s among the files of package %s", rel, pkgName, f.Name.Name)
		}
		msg += ": a Go package is one directory. To generate into this package for an interface of another, run rpcgen here and name the interface by its import path (rpcgen example.com/mod/pkg.Interface)"
		return diag.List{{Pos: fset.Position(f.Name.Pos()), Msg: msg}}
	}
	return nil
}
