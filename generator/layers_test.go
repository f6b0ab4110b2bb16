package generator

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layers ranks the generator's packages in pipeline order: a package may
// import only packages of a lower rank. diag, naming and metaschema (the
// checker of hand-written schemas) sit under everything, and serverdoc
// too (model checks //rpcgen:package and //rpcgen:env by its rules); cache is the layer around the stages, and the facade
// (generator itself) sits on top.
var layers = map[string]int{
	"diag":       0,
	"naming":     0,
	"metaschema": 0,
	"canon":      0,
	"contract":   0,
	"skills":     0,
	"serverdoc":  0,
	"load":       1,
	"model":      2,
	"schema":     3,
	"emit":       4,
	"apidoc":     4,
	"cache":      5,
	"":           6,
}

// TestLayers: every internal package has a rank, and no package imports
// one of the same or a higher rank (tests may import goldentest, which
// serves them the golden cases).
func TestLayers(t *testing.T) {
	const prefix = "github.com/rpcgen/rpcgen/generator"
	dirs, err := os.ReadDir("internal")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]string{"": "."}
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "goldentest" {
			pkgs[d.Name()] = filepath.Join("internal", d.Name())
		}
	}
	for name, dir := range pkgs {
		rank, ok := layers[name]
		if !ok {
			t.Errorf("package %s has no place in layers", name)
			continue
		}
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			sub, ok := strings.CutPrefix(imp, prefix+"/internal/")
			if !ok {
				if imp == prefix {
					t.Errorf("%s imports the facade", name)
				}
				continue
			}
			if r, ok := layers[sub]; !ok || r >= rank {
				t.Errorf("%s (rank %d) imports %s (rank %d): arrows point down the pipeline only", name, rank, sub, r)
			}
		}
	}
}
