package mcp_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// TestMethodNamesOnlyInTable holds the method table to being the one place
// the runtime spells a method's name: no non-test Go file of the runtime
// but methods.go quotes the name of a row. Everything else names the row's
// constant (mcp.MethodToolsCall) or reads the row. replicatest is left out:
// it is a test suite, whose requests are raw JSON on purpose.
func TestMethodNamesOnlyInTable(t *testing.T) {
	root := ".." // the runtime directory
	var quoted []string
	for _, m := range mcp.Methods() {
		quoted = append(quoted, strconv.Quote(m.Name))
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "replicatest" {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		if path == filepath.Join("..", "mcp", "methods.go") {
			return nil
		}
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			for _, q := range quoted {
				if strings.Contains(line, q) {
					t.Errorf("%s:%d spells %s: name the method table's constant instead", path, i+1, q)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked %d Go files under the runtime; the walk is broken", files)
	}
}
