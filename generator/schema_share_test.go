package generator

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestSharedSchemas: the schema builder shares the schemas it hands out
// (see namedBody), so a caller that changed one in place would change it
// for every other use of its type. For every golden case, the files made
// with shared schemas are those made when every use gets a deep copy of
// its own, as before sharing. A default run covers a sample of the cases;
// RPCGEN_EXHAUSTIVE=1 covers them all.
func TestSharedSchemas(t *testing.T) {
	cases := goldentest.Set(t, true)
	for _, name := range goldentest.Matrix(t, cases) {
		cfg := configOf(cases[name])
		if cfg.SchemaDir == "" {
			cfg.SchemaDir = "schemas" // every method's schemas, besides the tools'
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			shared, serr := generate(cfg, false, nil)
			deep, derr := generate(cfg, true, nil)
			if (serr == nil) != (derr == nil) || serr != nil && serr.Error() != derr.Error() {
				t.Fatalf("shared: %v\ndeep: %v", serr, derr)
			}
			paths := slices.Sorted(maps.Keys(deep))
			if len(shared) != len(deep) {
				t.Fatalf("shared made %d files, deep %d", len(shared), len(deep))
			}
			for _, p := range paths {
				if !bytes.Equal(shared[p], deep[p]) {
					t.Errorf("%s differs:\n%s", p, goldentest.Diff(shared[p], deep[p]))
				}
			}
		})
	}
}

// TestSharedSchemaItemsTag: a tag keyword that lands in an array field's
// items changes the items schema, which is the element type's shared body;
// the other uses of that type keep theirs.
func TestSharedSchemaItemsTag(t *testing.T) {
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	goldentest.WriteModule(t, root, repo)
	dir := filepath.Join(root, "itemstag")
	goldentest.MustWrite(t, filepath.Join(dir, "s.go"), []byte(`package itemstag

import "context"

// Code is a short code.
type Code string

// Req has three uses of Code.
type Req struct {
	Tagged []Code `+"`json:\"tagged\" jsonschema:\"maxLength=3,enum=ab\"`"+`
	Plain  []Code `+"`json:\"plain\"`"+`
	One    Code   `+"`json:\"one\"`"+`
}

// S is a service.
type S interface {
	// Do does it.
	Do(ctx context.Context, r Req) (Code, error)
}
`))
	cfg := Config{Dir: dir, Interfaces: []string{"S"}, SchemaDir: "schemas"}
	shared, err := generate(cfg, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	deep, err := generate(cfg, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	params := shared[filepath.Join(dir, "schemas", "s.do.params.schema.json")]
	if len(params) == 0 {
		t.Fatalf("no params schema among %v", slices.Sorted(maps.Keys(shared)))
	}
	if n := bytes.Count(params, []byte(`"maxLength": 3`)); n != 1 {
		t.Errorf("maxLength 3 appears %d times in the params schema, want once (tagged's items):\n%s", n, params)
	}
	for p := range deep {
		if !bytes.Equal(shared[p], deep[p]) {
			t.Errorf("%s differs:\n%s", p, goldentest.Diff(shared[p], deep[p]))
		}
	}
}
