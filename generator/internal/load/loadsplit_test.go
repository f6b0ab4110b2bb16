package load

import (
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// loadBoth loads the package in dir both ways: split, and whole with
// packages.Load. It returns the split result, nil when loadSplit declined.
func loadBoth(t *testing.T, dir, out string, tags []string) (split, whole *packages.Package) {
	t.Helper()
	pkgName := ""
	if f, err := parser.ParseFile(token.NewFileSet(), out, nil, parser.PackageClauseOnly); err == nil {
		pkgName = f.Name.Name
	}
	split, _ = loadSplit(dir, out, tags, nil, parseKeeping(out, pkgName, nil), nil)
	whole, err := loadWhole(dir, tags, parseKeeping(out, pkgName, nil))
	if err != nil {
		t.Fatal(err)
	}
	return split, whole
}

// sameLoad reports how split differs from whole in what the generator
// reads: the package's name and path, its files and their syntax, its type
// errors, the Go version and every package-level object with its type.
func sameLoad(split, whole *packages.Package) string {
	if split.Name != whole.Name || split.PkgPath != whole.PkgPath {
		return "name " + split.Name + " " + split.PkgPath + ", want " + whole.Name + " " + whole.PkgPath
	}
	if !slices.Equal(split.GoFiles, whole.GoFiles) {
		return "files " + strings.Join(split.GoFiles, " ") + ", want " + strings.Join(whole.GoFiles, " ")
	}
	names := func(p *packages.Package) []string {
		var s []string
		for _, f := range p.Syntax {
			s = append(s, p.Fset.File(f.Pos()).Name()+":"+f.Name.Name+":"+strconv.Itoa(len(f.Decls))+":"+strconv.Itoa(len(f.Comments)))
		}
		return s
	}
	if a, b := names(split), names(whole); !slices.Equal(a, b) {
		return "syntax " + strings.Join(a, " ") + ", want " + strings.Join(b, " ")
	}
	typeErrs := func(p *packages.Package) []string {
		var s []string
		for _, e := range p.Errors {
			if e.Kind == packages.TypeError {
				s = append(s, e.Pos+": "+e.Msg)
			}
		}
		return s
	}
	if a, b := typeErrs(split), typeErrs(whole); !slices.Equal(a, b) {
		return "type errors\n" + strings.Join(a, "\n") + "\nwant\n" + strings.Join(b, "\n")
	}
	if split.Types.GoVersion() != whole.Types.GoVersion() {
		return "Go version " + split.Types.GoVersion() + ", want " + whole.Types.GoVersion()
	}
	objects := func(p *packages.Package) []string {
		var s []string
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			s = append(s, types.ObjectString(obj, nil)+" @"+p.Fset.Position(obj.Pos()).String())
			if tn, ok := obj.(*types.TypeName); ok {
				s = append(s, types.TypeString(tn.Type().Underlying(), nil))
			}
		}
		return s
	}
	if a, b := objects(split), objects(whole); !slices.Equal(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				return "object " + a[i] + ", want " + b[i]
			}
		}
		return "objects differ in number"
	}
	return ""
}

// TestLoadSplitMatchesLoad: for every golden case, loading in two go list
// runs gives what the generator reads from packages.Load, and is not
// declined but for the cases it must decline. A default run covers a sample
// of the cases (TestLoadSplitCases has the ones made for the loader);
// RPCGEN_EXHAUSTIVE=1 covers them all.
func TestLoadSplitMatchesLoad(t *testing.T) {
	cases := goldentest.Set(t, true)
	names := goldentest.Matrix(t, cases)
	var split atomic.Int64 // cases loadSplit loaded, not declined
	t.Run("cases", func(t *testing.T) {
		for _, name := range names {
			cfg := cases[name]
			dir := cfg.Dir
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				out := cfg.Flags.Out
				if out == "" {
					out = naming.OutputName(cfg.Interfaces[0])
				}
				if !filepath.IsAbs(out) {
					out = filepath.Join(dir, out)
				}
				s, w := loadBoth(t, dir, out, cfg.Flags.Tags)
				if s == nil {
					// Only a package go list or the parser has a problem with
					// may be declined; packages.Load reports it.
					if !slices.ContainsFunc(w.Errors, func(e packages.Error) bool { return e.Kind != packages.TypeError }) {
						t.Fatalf("loadSplit declined a package packages.Load loads cleanly")
					}
					return
				}
				if d := sameLoad(s, w); d != "" {
					t.Fatal(d)
				}
				split.Add(1)
			})
		}
	})
	// The subtests let loadSplit decline any package packages.Load reports
	// a non-type error for (a stale output's go list error among them); a
	// loader declining too much would hide there.
	if n := split.Load(); n < int64(len(names))*3/4 {
		t.Errorf("loadSplit loaded only %d of %d golden packages", n, len(names))
	} else {
		t.Logf("loadSplit loaded %d of %d golden packages", n, len(names))
	}
}

// TestLoadSplitCases: build constraints, a stale output in place, type
// errors, no imports, and what loadSplit must decline (cgo, a syntax error).
func TestLoadSplitCases(t *testing.T) {
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	goldentest.WriteModule(t, root, repo)
	const svc = "package p\n\nimport \"context\"\n\n// S is a service.\ntype S interface {\n\tDo(ctx context.Context, n int) (int, error)\n}\n"
	for _, c := range []struct {
		name     string
		files    map[string]string
		tags     []string
		declined bool
	}{
		{name: "plain", files: map[string]string{"s.go": svc}},
		{name: "constraints", files: map[string]string{
			"s.go":             svc,
			"other_windows.go": "package p\n\nimport \"syscall\"\n\nvar _ = syscall.Handle(0)\n",
			"tagged.go":        "//go:build special\n\npackage p\n\nimport \"strings\"\n\nvar Tagged = strings.ToUpper\n",
			"ignored.go":       "//go:build ignore\n\npackage main\n",
		}},
		{name: "tags", tags: []string{"special"}, files: map[string]string{
			"s.go":      svc,
			"tagged.go": "//go:build special\n\npackage p\n\nimport \"strings\"\n\nvar Tagged = strings.ToUpper\n",
		}},
		{name: "stale output in place", files: map[string]string{
			"s.go":        svc,
			"s_rpcgen.go": "package p\n\nimport \"example.com/nowhere\"\n\nvar _ = nowhere.X\nfunc (broken\n",
		}},
		{name: "type errors", files: map[string]string{
			"s.go":   svc,
			"bad.go": "package p\n\nimport \"time\"\n\nvar X int = \"s\"\n\nfunc f() { time.Sleep(\"x\"); undefined() }\n",
		}},
		{name: "cgo", declined: true, files: map[string]string{
			"s.go": svc,
			"c.go": "package p\n\n// int one(void) { return 1; }\nimport \"C\"\n\nvar One = C.one\n",
		}},
		{name: "no imports", files: map[string]string{
			"s.go": "package p\n\ntype S interface {\n\tDo(n int) (int, error)\n}\n",
		}},
		{name: "syntax error", declined: true, files: map[string]string{
			"s.go":   svc,
			"bad.go": "package p\n\nfunc (\n",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, strings.ReplaceAll(c.name, " ", "_"))
			for name, src := range c.files {
				goldentest.MustWrite(t, filepath.Join(dir, name), []byte(src))
			}
			s, w := loadBoth(t, dir, filepath.Join(dir, "s_rpcgen.go"), c.tags)
			if (s == nil) != c.declined {
				t.Fatalf("loadSplit declined: %v, want %v", s == nil, c.declined)
			}
			if s == nil {
				return
			}
			if d := sameLoad(s, w); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestListCache: the list cache answers for a package whose files changed
// only below their package clause, and not after any change that can change
// go list's answer; what loads is what packages.Load gives every time.
func TestListCache(t *testing.T) {
	dir := t.TempDir()
	cache := mapStore{}
	const svc = "package p\n\nimport \"context\"\n\n// S is a service.\ntype S interface {\n\tDo(ctx context.Context, n int) (int, error)\n}\n"
	goldentest.MustWrite(t, filepath.Join(dir, "go.mod"), []byte("module example.com/lc\n\ngo 1.26.0\n"))
	goldentest.MustWrite(t, filepath.Join(dir, "s.go"), []byte(svc))
	goldentest.MustWrite(t, filepath.Join(dir, "other.go"), []byte("package p\n\nimport \"strings\"\n\nvar Up = strings.ToUpper\n"))
	out := filepath.Join(dir, "s_rpcgen.go")
	for _, step := range []struct {
		name  string
		edit  func()
		hit   bool
		split bool // loadSplit loads it (it declines when go/build and go list disagree)
	}{
		{name: "first", split: true},
		{name: "again", hit: true, split: true},
		{name: "body edit", hit: true, split: true, edit: func() {
			goldentest.MustWrite(t, filepath.Join(dir, "other.go"), []byte("package p\n\nimport \"strings\"\n\nvar Up = strings.ToUpper\n\nfunc Extra() int { return 1 }\n"))
		}},
		// rpcgen's output is in the answer exactly when it exists: the run
		// that writes it and the runs after share the entry.
		{name: "output written", hit: true, split: true, edit: func() {
			goldentest.MustWrite(t, out, []byte("// Code generated by rpcgen. DO NOT EDIT.\n\npackage p\n\nimport \"example.com/nowhere\"\n\nvar _ = nowhere.X\n"))
		}},
		{name: "output rewritten", hit: true, split: true, edit: func() {
			goldentest.MustWrite(t, out, []byte("// Code generated by rpcgen. DO NOT EDIT.\n\npackage p\n\nvar Stale = 1\n"))
		}},
		{name: "output of another package", split: false, edit: func() {
			goldentest.MustWrite(t, out, []byte("// Code generated by rpcgen. DO NOT EDIT.\n\npackage q\n"))
		}},
		{name: "output put back", hit: true, split: true, edit: func() {
			goldentest.MustWrite(t, out, []byte("// Code generated by rpcgen. DO NOT EDIT.\n\npackage p\n"))
		}},
		{name: "output with another header", split: true, edit: func() {
			goldentest.MustWrite(t, out, []byte("// Edited by hand.\n\n// Code generated by rpcgen. DO NOT EDIT.\n\npackage p\n"))
		}},
		// Left out by its constraint, as if it did not exist.
		{name: "output constrained", hit: true, split: true, edit: func() {
			goldentest.MustWrite(t, out, []byte("//go:build ignore\n\n// Code generated by rpcgen. DO NOT EDIT.\n\npackage p\n"))
		}},
		{name: "output unconstrained again", hit: true, split: true, edit: func() {
			goldentest.MustWrite(t, out, []byte("// Code generated by rpcgen. DO NOT EDIT.\n\npackage p\n"))
		}},
		{name: "build constraint", split: true, edit: func() {
			goldentest.MustWrite(t, filepath.Join(dir, "other.go"), []byte("//go:build ignore\n\npackage p\n\nimport \"strings\"\n\nvar Up = strings.ToUpper\n"))
		}},
		{name: "file added", split: true, edit: func() {
			goldentest.MustWrite(t, filepath.Join(dir, "more.go"), []byte("package p\n\nimport \"time\"\n\nvar Now = time.Now\n"))
		}},
		{name: "go version", split: true, edit: func() {
			goldentest.MustWrite(t, filepath.Join(dir, "go.mod"), []byte("module example.com/lc\n\ngo 1.25.0\n"))
		}},
		{name: "module path", split: true, edit: func() {
			goldentest.MustWrite(t, filepath.Join(dir, "go.mod"), []byte("module example.com/renamed\n\ngo 1.25.0\n"))
		}},
		{name: "GOFLAGS tags", split: false, edit: func() {
			goldentest.MustWrite(t, filepath.Join(dir, "tagged.go"), []byte("//go:build special\n\npackage p\n\nvar Special = 1\n"))
			t.Setenv("GOFLAGS", "-tags=special")
		}},
	} {
		if step.edit != nil {
			step.edit()
		}
		before := listRuns.Load()
		_, pkgName, _ := readHead(token.NewFileSet(), out)
		s, _ := loadSplit(dir, out, nil, cache, parseKeeping(out, pkgName, nil), nil)
		if hit := listRuns.Load() == before; hit != step.hit {
			t.Errorf("%s: answered from the list cache: %v, want %v", step.name, hit, step.hit)
		}
		if (s != nil) != step.split {
			t.Fatalf("%s: loadSplit loaded: %v, want %v", step.name, s != nil, step.split)
		}
		w, err := loadWhole(dir, nil, parseKeeping(out, pkgName, nil))
		if err != nil {
			t.Fatal(err)
		}
		if s == nil {
			continue
		}
		if d := sameLoad(s, w); d != "" {
			t.Errorf("%s: %s", step.name, d)
		}
	}
}

// TestLoadSplitGOPATH: in GOPATH mode loadSplit declines, and packages.Load
// loads the package.
func TestLoadSplitGOPATH(t *testing.T) {
	gopath := t.TempDir()
	dir := filepath.Join(gopath, "src", "example.com", "gp")
	goldentest.MustWrite(t, filepath.Join(dir, "s.go"), []byte("package gp\n\nimport \"context\"\n\ntype S interface {\n\tDo(ctx context.Context) error\n}\n"))
	t.Setenv("GO111MODULE", "off")
	t.Setenv("GOPATH", gopath)
	s, w := loadBoth(t, dir, filepath.Join(dir, "s_rpcgen.go"), nil)
	if s != nil {
		t.Fatal("loadSplit loaded a package in GOPATH mode")
	}
	if w.Types == nil || w.Types.Scope().Lookup("S") == nil {
		t.Fatalf("packages.Load did not load it: %v", w.Errors)
	}
}

// mapStore is a list store in memory.
type mapStore map[string][]byte

func (s mapStore) Get(key string) ([]byte, bool) { b, ok := s[key]; return b, ok }
func (s mapStore) Put(key string, value []byte)  { s[key] = value }

// TestLoadPackagesDriver: with a GOPACKAGESDRIVER, named in the environment
// or found in PATH as gopackagesdriver, the driver answers and not go list:
// loadSplit declines, and Load asks the driver (this one answers that it
// does not handle the request, so go/packages goes on to go list).
func TestLoadPackagesDriver(t *testing.T) {
	dir := t.TempDir()
	goldentest.MustWrite(t, filepath.Join(dir, "go.mod"), []byte("module example.com/drv\n\ngo 1.26.0\n"))
	goldentest.MustWrite(t, filepath.Join(dir, "s.go"), []byte("package drv\n\nimport \"context\"\n\ntype S interface {\n\tDo(ctx context.Context) error\n}\n"))
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "asked")
	driver := filepath.Join(bin, "gopackagesdriver")
	script := "#!/bin/sh\ncat >/dev/null\necho asked >>" + marker + "\necho '{\"NotHandled\": true}'\n"
	if err := os.WriteFile(driver, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s_rpcgen.go")
	for _, c := range []struct {
		name string
		env  func()
	}{
		{"GOPACKAGESDRIVER", func() { t.Setenv("GOPACKAGESDRIVER", driver) }},
		{"in PATH", func() {
			t.Setenv("GOPACKAGESDRIVER", "")
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(marker)
			c.env()
			if s, _ := loadSplit(dir, out, nil, nil, parseKeeping(out, "", nil), nil); s != nil {
				t.Fatal("loadSplit loaded the package past the driver")
			}
			pkg, _, err := Load(dir, out, nil)
			if err != nil || pkg.Types.Scope().Lookup("S") == nil {
				t.Fatalf("the load failed: %v", err)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatal("the driver was not asked")
			}
		})
	}
	t.Setenv("GOPACKAGESDRIVER", "off")
	if s, _ := loadSplit(dir, out, nil, nil, parseKeeping(out, "", nil), nil); s == nil {
		t.Error("with GOPACKAGESDRIVER=off, loadSplit declined")
	}
}
