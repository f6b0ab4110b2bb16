package generator

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestRelativeQualifier generates for "../api.Service", an interface of a
// package named by its directory relative to the generating package's, and
// checks that the output imports the package by its import path, also
// after the module is renamed: the output cache must not hand back the
// output of the earlier resolution.
func TestRelativeQualifier(t *testing.T) {
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	goldentest.WriteModule(t, root, repo)
	goldentest.MustWrite(t, filepath.Join(root, "svc", "gen", "gen.go"), []byte("package gen\n"))
	goldentest.MustWrite(t, filepath.Join(root, "svc", "api", "api.go"), []byte(`package api

import "context"

// Service answers pings.
type Service interface {
	// Ping answers.
	Ping(ctx context.Context) error
}
`))
	cfg := Config{Dir: filepath.Join(root, "svc", "gen"), Interfaces: []string{"../api.Service"}}
	cached := Cache{Dir: t.TempDir()}
	out := filepath.Join(cfg.Dir, "service_rpcgen.go")
	for _, module := range []string{goldentest.Module, "rpcgen.test/renamed"} {
		gomod := filepath.Join(root, "go.mod")
		b, err := os.ReadFile(gomod)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), "module "+goldentest.Module+"\n", "module "+module+"\n", 1))
		if err := os.WriteFile(gomod, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := Generate(cfg)
		if err != nil {
			t.Fatalf("module %s: %v", module, err)
		}
		imp := []byte("\t\"" + module + "/svc/api\"\n")
		if !bytes.Contains(files[out], imp) || !bytes.Contains(files[out], []byte("impl api.Service")) {
			t.Errorf("module %s: the output does not import %s as api:\n%s", module, bytes.TrimSpace(imp), files[out])
		}
		for _, pass := range []string{"filling the cache", "from the cache"} {
			cf, err := cached.Generate(cfg)
			if err != nil || !maps.EqualFunc(cf, files, bytes.Equal) {
				t.Errorf("module %s: Cache.Generate, %s, differs from Generate (error %v)", module, pass, err)
			}
		}
	}
}
