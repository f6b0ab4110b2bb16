package generator

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want/ sections of testdata/golden/*.txtar")

// goldenModule is the module every golden case lives in, so that one
// "go vet" compiles all outputs against this repository's runtime.
const goldenModule = "rpcgen.test/golden"

// TestGolden runs the generator on each testdata/golden/<case>.txtar: the
// archive's files form the package (with "args" naming the interfaces and
// flags), and its want/ files hold the expected output, or want/stderr the
// expected errors. A final subtest compiles and vets every generated file.
func TestGolden(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob(filepath.Join(repo, "testdata", "golden", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	root := t.TempDir()
	writeGoldenModule(t, root, repo)

	var compiled []string // packages whose output must compile
	t.Run("cases", func(t *testing.T) {
		for _, file := range cases {
			name := strings.TrimSuffix(filepath.Base(file), ".txtar")
			dir := filepath.Join(root, name)
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg := extractCase(t, ar, dir)
			if !hasFile(ar, "want/stderr") {
				compiled = append(compiled, "./"+name+"/...")
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				got := onlyAPI(ar, cfg, onlySchemas(ar, cfg, runCase(t, cfg, dir)))
				checkOrUpdate(t, file, ar, got)
			})
		}
	})
	if t.Failed() {
		return
	}
	t.Run("compile", func(t *testing.T) {
		slices.Sort(compiled)
		cmd := exec.Command("go", append([]string{"vet"}, compiled...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go vet of the generated code failed: %v\n%s", err, out)
		}
	})
}

func writeGoldenModule(t *testing.T, root, repo string) {
	t.Helper()
	gomod := "module " + goldenModule + "\n\ngo 1.26.0\n\nrequire github.com/rpcgen/rpcgen v0.0.0\n\nreplace github.com/rpcgen/rpcgen => " + repo + "\n"
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "go.mod"), []byte(gomod))
	mustWrite(t, filepath.Join(root, "go.sum"), sum)
}

// extractCase writes the package files of ar below dir and returns the
// generator config its "args" file describes.
func extractCase(t *testing.T, ar *txtar.Archive, dir string) Config {
	t.Helper()
	cfg := Config{Dir: dir}
	for _, f := range ar.Files {
		switch {
		case f.Name == "args":
			for _, word := range strings.Fields(string(f.Data)) {
				if out, ok := strings.CutPrefix(word, "--out="); ok {
					cfg.Output = out
				} else if sd, ok := strings.CutPrefix(word, "--schema-dir="); ok {
					cfg.SchemaDir = sd
				} else if f, ok := strings.CutPrefix(word, "--openrpc="); ok {
					cfg.OpenRPC = f
				} else if f, ok := strings.CutPrefix(word, "--ts="); ok {
					cfg.TypeScript = f
				} else if f, ok := strings.CutPrefix(word, "--docs="); ok {
					cfg.Docs = f
				} else if v, ok := strings.CutPrefix(word, "--api-version="); ok {
					cfg.APIVersion = v
				} else if word == "--no-discover" {
					cfg.NoDiscover = true
				} else if word != onlySchemasWord && word != onlyAPIWord {
					cfg.Interfaces = append(cfg.Interfaces, word)
				}
			}
		case strings.HasPrefix(f.Name, "want/"):
		default:
			mustWrite(t, filepath.Join(dir, f.Name), f.Data)
		}
	}
	return cfg
}

// runCase generates and returns the want/ files it should produce.
func runCase(t *testing.T, cfg Config, dir string) map[string][]byte {
	files, err := Generate(cfg)
	got := map[string][]byte{}
	if err != nil {
		msg := err.Error()
		if list, ok := err.(ErrorList); ok {
			msg = list.Format(dir)
		}
		got["want/stderr"] = []byte(msg)
		return got
	}
	for path, src := range files {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			t.Fatal(err)
		}
		got["want/"+filepath.ToSlash(rel)] = src
		mustWrite(t, path, src) // for the compile subtest
	}
	return got
}

func checkOrUpdate(t *testing.T, file string, ar *txtar.Archive, got map[string][]byte) {
	t.Helper()
	if *update {
		var kept []txtar.File
		for _, f := range ar.Files {
			if !strings.HasPrefix(f.Name, "want/") {
				kept = append(kept, f)
			}
		}
		names := make([]string, 0, len(got))
		for n := range got {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			data := got[n]
			if len(data) > 0 && data[len(data)-1] != '\n' {
				data = append(data, '\n')
			}
			kept = append(kept, txtar.File{Name: n, Data: data})
		}
		ar.Files = kept
		mustWrite(t, file, txtar.Format(ar))
		return
	}
	want := map[string][]byte{}
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want/") {
			want[f.Name] = f.Data
		}
	}
	for name, data := range got {
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected output %s:\n%s", name, data)
			continue
		}
		if !bytes.Equal(bytes.TrimRight(w, "\n"), bytes.TrimRight(data, "\n")) {
			t.Errorf("%s differs from the golden file (rerun with -update if the change is intended):\n%s",
				name, lineDiff(string(w), string(data)))
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("missing output %s", name)
		}
	}
}

// lineDiff shows the first differing lines, enough to see what changed.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 10; i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g + "\n")
			shown++
		}
	}
	return b.String()
}

func hasFile(ar *txtar.Archive, name string) bool {
	return slices.ContainsFunc(ar.Files, func(f txtar.File) bool { return f.Name == name })
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
