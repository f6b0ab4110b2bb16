package generator

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/rpcgen/rpcgen/generator/internal/apidoc"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/internal/diff"
)

var update = flag.Bool("update", false, "rewrite the want/ sections of testdata/golden/*.txtar")

// TestGolden runs the generator on each testdata/golden/<case>.txtar: the
// archive's files form the package (with "args" naming the interfaces and
// flags), and its want/ files hold the expected output and want/warnings
// the warnings printed with it, or want/stderr the expected errors (but
// the TypeScript runtime, the same in every case, which runCase checks
// apart). Every case runs twice through Cache.Generate, as the rpcgen
// command runs it (the run that fills the cache and the run it answers),
// which must give the same bytes, or the same errors; the cases of
// goldentest.Matrix's sample (every case with RPCGEN_EXHAUSTIVE=1) run
// through Generate too, which must give them as well. (A run costs a
// package load, three go list runs: the golden tests were most of the
// generator's test time. Generate and Cache.Generate share everything but
// the cache layer, whose equivalence TestGenCacheGolden checks.) A final
// subtest compiles and vets every generated file.
func TestGolden(t *testing.T) {
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := filepath.Glob(filepath.Join(repo, "testdata", "golden", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	root := t.TempDir()
	goldentest.WriteModule(t, root, repo)
	cached := Cache{Dir: t.TempDir()}

	names := map[string]bool{}
	for _, file := range cases {
		names[strings.TrimSuffix(filepath.Base(file), ".txtar")] = true
	}
	sample := goldentest.Matrix(t, names) // the cases also run through Generate

	var compiled []string // packages whose output must compile
	t.Run("cases", func(t *testing.T) {
		for _, file := range cases {
			name := strings.TrimSuffix(filepath.Base(file), ".txtar")
			dir := filepath.Join(root, name)
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg := configOf(goldentest.Extract(t, ar, dir))
			if !goldentest.HasFile(ar, "want/stderr") {
				compiled = append(compiled, "./"+name+"/...")
			}
			uncached := slices.Contains(sample, name)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				got := onlyAPI(ar, cfg, onlySchemas(ar, cfg, runCase(t, cfg, dir, cached, uncached)))
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

// runCase generates through the cache and returns the want/ files it
// should produce, after checking that the run the cache answers gives
// what the run that filled it gave, and so does Generate when uncached.
func runCase(t *testing.T, cfg Config, dir string, cached Cache, uncached bool) map[string][]byte {
	var warnings ErrorList
	cfg.Warn = func(w *Error) { warnings = append(warnings, w) }
	files, err := cached.Generate(cfg)
	want := warnings.Format(dir)
	type pass struct {
		name     string
		generate func(Config) (map[string][]byte, error)
	}
	passes := []pass{{"Cache.Generate from the cache", cached.Generate}}
	if uncached {
		passes = append(passes, pass{"Generate (no cache)", Generate})
	}
	for _, p := range passes {
		warnings = nil
		cf, cerr := p.generate(cfg)
		if fmt.Sprint(cerr) != fmt.Sprint(err) || !maps.EqualFunc(cf, files, bytes.Equal) {
			t.Errorf("%s differs from the run that filled the cache: error %v, want %v; %d files, want %d", p.name, cerr, err, len(cf), len(files))
		}
		if w := warnings.Format(dir); w != want {
			t.Errorf("%s warns differently from the run that filled the cache:\n%s\nwant:\n%s", p.name, w, want)
		}
	}
	got := map[string][]byte{}
	if want != "" {
		got["want/warnings"] = []byte(want) // the warnings a run with files printed
	}
	if err != nil {
		msg := err.Error()
		if list, ok := err.(ErrorList); ok {
			msg = list.Format(dir)
		}
		got["want/stderr"] = []byte(msg)
		return got
	}
	if cfg.TypeScript != "" {
		// The TypeScript runtime is the same file in every case (its bytes
		// are checked here, its source is templates/client_runtime.ts): the
		// goldens hold the clients that import it, not copies of it.
		rt := apiOptions(cfg).TSRuntimePath(dir)
		if !bytes.Equal(files[rt], apidoc.TSRuntimeFile()) {
			t.Errorf("the TypeScript runtime %s is missing or not the runtime (%d bytes)", rt, len(files[rt]))
		}
		files = maps.Clone(files)
		delete(files, rt)
	}
	for path, src := range files {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			t.Fatal(err)
		}
		got["want/"+filepath.ToSlash(rel)] = src
		goldentest.MustWrite(t, path, src) // for the compile subtest
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
		goldentest.MustWrite(t, file, txtar.Format(ar))
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
				name, diff.Unified("want", "got", string(w), string(data)))
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("missing output %s", name)
		}
	}
}

// configOf is the Config of a golden case.
func configOf(c goldentest.Case) Config {
	f := c.Flags
	return Config{Dir: c.Dir, Interfaces: c.Interfaces, Output: f.Out, BuildTags: f.Tags, SchemaDir: f.SchemaDir,
		OpenRPC: f.OpenRPC, TypeScript: f.TypeScript, TSRuntime: f.TSRuntime, Docs: f.Docs, NoDiscover: f.NoDiscover, APIVersion: f.APIVersion, OpenRPCVersion: f.OpenRPCVersion,
		Servers: f.Servers, License: f.License, LicenseURL: f.LicenseURL, Contact: f.Contact, ContactEmail: f.ContactEmail, ContactURL: f.ContactURL,
		ServerJSON: f.ServerJSON, ServerCard: f.ServerCard, Server: ServerMeta(f.ServerMeta())}
}
