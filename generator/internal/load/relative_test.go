package load

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestForeignRelative loads a package with the relative qualifiers
// "../api" and "./missing", split and whole, and checks that Foreign
// resolves the first to its import path and reports the second by the
// directory the user named.
func TestForeignRelative(t *testing.T) {
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	goldentest.WriteModule(t, root, repo)
	dir := filepath.Join(root, "svc", "gen")
	goldentest.MustWrite(t, filepath.Join(dir, "gen.go"), []byte("package gen\n"))
	goldentest.MustWrite(t, filepath.Join(root, "svc", "api", "api.go"), []byte("package api\n\ntype Service interface{ Ping() error }\n"))
	out := filepath.Join(dir, "service_rpcgen.go")
	foreign := []string{"../api", "./missing"}

	split, ok := loadSplit(dir, out, nil, nil, parseKeeping(out, "", nil), foreign)
	if !ok {
		t.Fatal("loadSplit declined")
	}
	whole, err := loadWhole(dir, nil, parseKeeping(out, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := loadForeign(whole, whole.Fset, dir, nil, toLoad(foreign, importsOf(whole.Syntax))); err != nil {
		t.Fatal(err)
	}
	for how, pkg := range map[string]*packages.Package{"split": split, "whole": whole} {
		p, err := Foreign(pkg, "../api")
		if err != nil {
			t.Errorf("%s: Foreign(../api): %v", how, err)
		} else if want := goldentest.Module + "/svc/api"; p.Path() != want {
			t.Errorf("%s: Foreign(../api) is %s, want %s", how, p.Path(), want)
		}
		if _, err := Foreign(pkg, "./missing"); err == nil || !strings.Contains(err.Error(), "no directory ./missing") {
			t.Errorf("%s: Foreign(./missing) = %v, want an error naming ./missing", how, err)
		}
	}
}
