package runtime_test

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runtimeLayers ranks the runtime's packages (directories under runtime/): a
// package may import only packages of a lower rank. At the bottom is the
// word-at-a-time walk over JSON text; over it the helpers that know no
// JSON-RPC; then the JSON-RPC runtime; the transports
// and the generated code's helpers over it; the MCP vocabulary (package
// mcp: types, the method table); the MCP server and client, side by side;
// their HTTP transports and tasks; and the test suites over them (replicas,
// task stores).
var runtimeLayers = map[string]int{
	"internal/jsonplain":       0,
	"internal/jsonscan":        1,
	"internal/jsonenc":         1,
	"internal/httpguard":       1,
	"internal/cancelhook":      1,
	"sse":                      1,
	"mcp/internal/askhook":     1,
	"mcp/internal/streamclose": 1,
	"mcp/internal/askcrypto":   2,
	".":                        2,
	"rpcimpl":                  3,
	"rpcnet":                   3,
	"rpchttp":                  3,
	"mcp/internal/wire":        3,
	"mcp":                      4,
	"mcp/ask":                  5,
	"mcp/internal/httpwire":    5,
	"mcp/mcpserver":            6,
	"mcp/mcpclient":            6,
	"mcp/mcphttp":              7,
	"mcp/mcphttpclient":        7,
	"mcp/tasks":                7,
	"mcp/tasks/taskstest":      8,
	"mcp/mcphttp/replicatest":  8,
}

// runtimeSides says which side of MCP a package serves. A package of one
// side never depends, directly or not, on a package of the other: a server
// links no client, a client no server. Packages not listed serve both.
var runtimeSides = map[string]string{
	"mcp/mcpserver":       "server",
	"mcp/mcpclient":       "client",
	"mcp/mcphttp":         "server",
	"mcp/mcphttpclient":   "client",
	"mcp/tasks":           "server",
	"mcp/tasks/taskstest": "server",
}

// TestRuntimeLayers: every package under runtime/ has a rank, imports only
// packages of a lower rank (arrows point down), and a server-side package
// depends on no client-side one nor the other way round. .ci/run runs it.
func TestRuntimeLayers(t *testing.T) {
	const prefix = "github.com/rpcgen/rpcgen/runtime"
	imports := map[string][]string{} // package -> the runtime packages it imports
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == "testdata" || (path != "." && strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.ToSlash(path)
		imports[name] = nil
		for _, imp := range p.Imports {
			if imp == prefix {
				imports[name] = append(imports[name], ".")
			} else if sub, ok := strings.CutPrefix(imp, prefix+"/"); ok {
				imports[name] = append(imports[name], sub)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{".", "mcp", "mcp/mcpserver", "mcp/mcpclient", "mcp/mcphttp", "mcp/mcphttpclient"} {
		if _, ok := imports[must]; !ok {
			t.Fatalf("package %s not found under runtime/: the walk is broken", must)
		}
	}
	for name, imps := range imports {
		rank, ok := runtimeLayers[name]
		if !ok {
			t.Errorf("package runtime/%s has no place in runtimeLayers", name)
			continue
		}
		for _, imp := range imps {
			if r, ok := runtimeLayers[imp]; ok && r >= rank {
				t.Errorf("runtime/%s (rank %d) imports runtime/%s (rank %d): arrows point down only", name, rank, imp, r)
			}
		}
	}
	for name, side := range runtimeSides {
		for _, dep := range deps(imports, name) {
			if other := runtimeSides[dep]; other != "" && other != side {
				t.Errorf("runtime/%s (%s side) depends on runtime/%s (%s side)", name, side, dep, other)
			}
		}
	}
}

// deps returns the runtime packages name depends on, directly or not.
func deps(imports map[string][]string, name string) []string {
	var out []string
	seen := map[string]bool{name: true}
	queue := []string{name}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range imports[p] {
			if !seen[imp] {
				seen[imp] = true
				out = append(out, imp)
				queue = append(queue, imp)
			}
		}
	}
	slices.Sort(out)
	return out
}
