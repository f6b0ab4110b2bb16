package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFeaturesRun generates code for testdata/featurerun/writer.go in a
// module of its own and runs features_test.go there: prompts with enum
// arguments (checked and completed), a resource template with a number
// variable, a completer, the generated typed client, in both eras.
func TestFeaturesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeGoldenModule(t, root, repo)
	dir := filepath.Join(root, "writer")
	for _, name := range []string{"writer.go", "features_test.go"} {
		src, err := os.ReadFile(filepath.Join(repo, "testdata", "featurerun", name))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, name), src)
	}
	files, err := Generate(Config{Dir: dir, Interfaces: []string{"Writer"}})
	if err != nil {
		t.Fatal(err)
	}
	for path, src := range files {
		mustWrite(t, path, src)
	}
	cmd := exec.Command("go", "test", "-count=1", "./writer")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test of the generated features failed: %v\n%s", err, out)
	}
}
