package generator

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestDecodersRun generates code for testdata/decoderun/shop.go in a
// module of its own and runs decode_test.go there: table-driven inputs
// through the generated decode functions, asserting the exact messages a
// caller gets, the decoded values, and the allocations.
func TestDecodersRun(t *testing.T) {
	runGeneratedTests(t, "decoderun", "shop", "Shop", []string{"shop.go", "decode_test.go"}, func(path string, src []byte) {
		if !bytes.Contains(src, []byte("func decodeShopSearchParams(")) {
			t.Fatalf("%s holds no decoder for Shop.Search", path)
		}
	})
}

// runGeneratedTests copies files from testdata/<from> into package pkg of a
// module of its own, generates iface's code there, calls check on each
// generated file, and runs the package's tests, which exercise the generated
// code: the test fails with their output when they do. The module holds
// testdata/randjson too, the random values the harnesses share.
func runGeneratedTests(t *testing.T, from, pkg, iface string, files []string, check func(path string, src []byte)) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a module")
	}
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	goldentest.WriteModule(t, root, repo)
	dir := filepath.Join(root, pkg)
	copies := map[string]string{filepath.Join("randjson", "randjson.go"): filepath.Join(root, "randjson", "randjson.go")}
	for _, name := range files {
		copies[filepath.Join(from, name)] = filepath.Join(dir, name)
	}
	for src, dst := range copies {
		data, err := os.ReadFile(filepath.Join(repo, "testdata", src))
		if err != nil {
			t.Fatal(err)
		}
		goldentest.MustWrite(t, dst, data)
	}
	generated, err := Generate(Config{Dir: dir, Interfaces: []string{iface}})
	if err != nil {
		t.Fatal(err)
	}
	for path, src := range generated {
		goldentest.MustWrite(t, path, src)
		if check != nil {
			check(path, src)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "./"+pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the generated %s code failed: %v\n%s", pkg, err, out)
	}
}

// TestResultDecodersRun generates code for testdata/resultrun/results.go in
// a module of its own and runs result_test.go there: random values of
// every result type, the examples' kinds among them, decoded by the
// generated result decoders and by json.Unmarshal, which must agree.
func TestResultDecodersRun(t *testing.T) {
	runGeneratedTests(t, "resultrun", "results", "Results", []string{"results.go", "result_test.go"}, func(path string, src []byte) {
		if !bytes.Contains(src, []byte("func readEverythingResult(")) {
			t.Fatalf("%s holds no result decoder for Everything", path)
		}
	})
}

// TestResultEncodersRun generates code for testdata/encoderun/encodes.go in
// a module of its own and runs encode_test.go there: random and edge values
// of every result type encoded by the generated result encoders and by
// encoding/json, which must write the same bytes (values left to
// encoding/json within them included); the fallback to AppendResult for
// what encoding/json refuses, and for a recursive result type; the
// encoders' allocations.
func TestResultEncodersRun(t *testing.T) {
	runGeneratedTests(t, "encoderun", "encodes", "Encodes", []string{"encodes.go", "encode_test.go"}, func(path string, src []byte) {
		for _, name := range []string{"Kinds", "Fallback"} {
			if !bytes.Contains(src, []byte("func append"+name+"JSON(")) {
				t.Errorf("%s holds no result encoder for %s", path, name)
			}
		}
		if bytes.Contains(src, []byte("func appendTreeJSON(")) {
			t.Errorf("%s holds a result encoder for Tree, a recursive type left to encoding/json", path)
		}
	})
}
