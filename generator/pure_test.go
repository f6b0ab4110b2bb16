package generator

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// snapshot describes every file and directory below root: its mode, size,
// modification time and content, so that any write shows.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		m[path] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// chmodTree makes every directory and file below root read-only (ro) or
// writable again.
func chmodTree(t *testing.T, root string, ro bool) {
	t.Helper()
	dirMode, fileMode := fs.FileMode(0o755), fs.FileMode(0o644)
	if ro {
		dirMode, fileMode = 0o555, 0o444
	}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil {
			if d.IsDir() {
				os.Chmod(path, dirMode)
			} else {
				os.Chmod(path, fileMode)
			}
		}
		return nil
	})
}

// TestGenerateIsPure: Generate, on a read-only copy of a golden package
// asked for every output, returns the files and writes none of them, nor
// anything else below the module; and it reads no cache, even where the
// environment names one holding answers for this very package.
func TestGenerateIsPure(t *testing.T) {
	c := goldentest.Set(t, false)["basic"]
	cfg := configOf(c)
	cfg.SchemaDir, cfg.OpenRPC, cfg.TypeScript, cfg.Docs = "schemas", "api/openrpc.json", "api/client.ts", "api/reference.md"
	root := filepath.Dir(c.Dir)

	cacheDir := t.TempDir()
	if _, err := (Cache{Dir: cacheDir}).Generate(cfg); err != nil {
		t.Fatal(err)
	}
	plantAll(t, cacheDir) // a run that read it would end its outputs with plantMark
	t.Setenv("RPCGEN_CACHE", cacheDir)

	chmodTree(t, root, true)
	t.Cleanup(func() { chmodTree(t, root, false) })
	before, cacheBefore := snapshot(t, root), snapshot(t, cacheDir)
	files, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := mapDiff(before, snapshot(t, root)); d != "" {
		t.Errorf("Generate changed the package's module:\n%s", d)
	}
	if d := mapDiff(cacheBefore, snapshot(t, cacheDir)); d != "" {
		t.Errorf("Generate changed the cache directory:\n%s", d)
	}
	want := []string{cmp.Or(cfg.Output, naming.OutputName(cfg.Interfaces[0])), "api/openrpc.json", "api/client.ts", "api/reference.md"}
	for _, rel := range want {
		if len(files[filepath.Join(c.Dir, rel)]) == 0 {
			t.Errorf("no %s among the files returned", rel)
		}
	}
	schemas := 0
	for path, src := range files {
		if bytes.HasSuffix(src, []byte(plantMark)) {
			t.Errorf("%s came from the cache", path)
		}
		if strings.HasPrefix(path, filepath.Join(c.Dir, "schemas")+string(filepath.Separator)) {
			schemas++
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s exists on disk", path)
		}
	}
	if schemas == 0 {
		t.Error("no schema files among the files returned")
	}
}

// mapDiff lists the keys whose values differ between a and b.
func mapDiff(a, b map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if b[k] != a[k] {
			out = append(out, k+": "+a[k]+" -> "+b[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			out = append(out, k+": new")
		}
	}
	return strings.Join(out, "\n")
}
