package generator

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"go/scanner"
	"go/token"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/cache"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

var (
	mutations    = flag.Int("gencache.mutations", 2, "random source changes per golden case in TestGenCacheGolden")
	mutationSeed = flag.Uint64("gencache.seed", 1, "seed of TestGenCacheGolden's random source changes")
)

// goldenCases writes every golden case that generates without error into
// one module under a temporary root, and returns their configs by name.
func goldenCases(t *testing.T) map[string]Config {
	t.Helper()
	cases := map[string]Config{}
	for name, c := range goldentest.Set(t, false) {
		cases[name] = configOf(c)
	}
	return cases
}

func generateOrError(generate func(Config) (map[string][]byte, error), cfg Config) (files map[string][]byte, msg string) {
	defer func() {
		if p := recover(); p != nil {
			files, msg = nil, fmt.Sprintf("panic: %v", p)
		}
	}()
	files, err := generate(cfg)
	if err != nil {
		return nil, err.Error()
	}
	return files, ""
}

// TestGenCacheGolden runs every golden case with a cache. First it
// changes the package at random, one change at a time (a comment, a string
// or number literal, an identifier, an empty line added or a line removed,
// a function added, in any of the case's files, dependencies included), and
// generates each changed package with the cache every earlier run filled
// and without a cache: both must give the same outputs, or the same error;
// a key that missed an input would hand back an earlier output here. Then,
// on the package as it was, a run must give what the first run gave, and
// come from the cache: the entry, planted with a marker, must come back.
// A default run covers a sample of the cases (TestGolden checks every case's
// cached runs without edits); RPCGEN_EXHAUSTIVE=1 covers them all.
func TestGenCacheGolden(t *testing.T) {
	cases := goldenCases(t)
	for _, name := range goldentest.Matrix(t, cases) {
		cfg := cases[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cached := Cache{Dir: t.TempDir()}
			first, err := cached.Generate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			srcs := goFiles(t, cfg.Dir)
			rng := rand.New(rand.NewPCG(*mutationSeed, uint64(len(name))<<16|uint64(name[0])<<8|uint64(name[len(name)-1])))
			for i := range *mutations {
				path := srcs[rng.IntN(len(srcs))]
				orig, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				what, changed := mutate(orig, rng)
				goldentest.MustWrite(t, path, changed)
				want, wantErr := generateOrError(Generate, cfg)
				got, gotErr := generateOrError(cached.Generate, cfg)
				if strings.HasPrefix(wantErr, "panic: ") {
					t.Errorf("mutation %d, %s in %s: the generator panics: %s", i, what, filepath.Base(path), wantErr)
				}
				if gotErr != wantErr || !maps.EqualFunc(got, want, bytes.Equal) {
					t.Errorf("mutation %d, %s in %s: with the cache %q, without %q; outputs equal: %v",
						i, what, filepath.Base(path), gotErr, wantErr, maps.EqualFunc(got, want, bytes.Equal))
				}
				goldentest.MustWrite(t, path, orig)
			}

			srcSet := &load.Sources{}
			_, first0 := load.SplitQualified(cfg.Interfaces[0])
			out := filepath.Join(cfg.Dir, cmp.Or(cfg.Output, naming.OutputName(first0)))
			pkg, typeErrs, err := load.LoadSources(cfg.Dir, out, nil, srcSet, nil, foreignOf(cfg.Interfaces)...)
			if err != nil {
				t.Fatal(err)
			}
			if len(typeErrs) > 0 {
				// A package with type errors is never cached.
				if entries, _ := filepath.Glob(filepath.Join(cached.Dir, "gen", "*")); len(entries) > 0 {
					t.Fatalf("a package with type errors has cache entries: %v", entries)
				}
				return
			}
			// A change the key leaves out (a dependency's doc comment, a
			// helper named like generated code) stored its output under
			// the same key, with a log that no longer holds: this run
			// must see that and store the first run's output again.
			second, err := cached.Generate(cfg)
			if err != nil || !maps.EqualFunc(first, second, bytes.Equal) {
				t.Fatalf("the run after the mutations differs from the first (%v)", err)
			}
			key, ok := cache.Key(cached.Dir, settingsOf(cfg, cfg.Dir, out), pkg, srcSet)
			if !ok {
				t.Fatal("no key")
			}
			planted := plantEntry(t, filepath.Join(cached.Dir, "gen", key))
			for p, src := range planted {
				if !bytes.Equal(append(bytes.Clone(first[p]), plantMark...), src) {
					t.Fatalf("the cache entry's %s is not what the first run gave", p)
				}
			}
			if len(planted) != len(first) {
				t.Fatalf("the cache entry has %d files, the first run gave %d", len(planted), len(first))
			}
			third, err := cached.Generate(cfg)
			if err != nil || !maps.EqualFunc(third, planted, bytes.Equal) {
				t.Fatalf("the last run did not come from the cache: %v", err)
			}
		})
	}
}

func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files under %s: %v", dir, err)
	}
	slices.Sort(files)
	return files
}

// mutate changes src in one random way and says how.
func mutate(src []byte, rng *rand.Rand) (string, []byte) {
	type tok struct {
		off int
		tok token.Token
		lit string
	}
	var toks []tok
	fset := token.NewFileSet()
	tf := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(tf, src, nil, scanner.ScanComments)
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		if t == token.COMMENT || t == token.STRING || t == token.INT || t == token.IDENT {
			toks = append(toks, tok{tf.Offset(pos), t, lit})
		}
	}
	splice := func(at int, del int, ins string) []byte {
		out := slices.Clone(src[:at])
		out = append(out, ins...)
		return append(out, src[at+del:]...)
	}
	lineStarts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			lineStarts = append(lineStarts, i+1)
		}
	}
	switch k := rng.IntN(10); {
	case k < 5 && len(toks) > 0:
		tk := toks[rng.IntN(len(toks))]
		switch tk.tok {
		case token.COMMENT:
			at := 2 + rng.IntN(max(1, len(tk.lit)-3))
			return fmt.Sprintf("comment %q gets a letter at %d", tk.lit, at), splice(tk.off+at, 0, "Zq")
		case token.STRING:
			if len(tk.lit) < 3 {
				return "string " + tk.lit + " grows", splice(tk.off+1, 0, "z")
			}
			at := 1 + rng.IntN(len(tk.lit)-2)
			return fmt.Sprintf("string %s loses byte %d", tk.lit, at), splice(tk.off+at, 1, "")
		case token.INT:
			return "number " + tk.lit + " gets a digit", splice(tk.off+len(tk.lit), 0, "7")
		default:
			return "identifier " + tk.lit + " renamed", splice(tk.off+len(tk.lit), 0, "Q")
		}
	case k < 8:
		at := lineStarts[rng.IntN(len(lineStarts))]
		return fmt.Sprintf("empty line before offset %d", at), splice(at, 0, "\n")
	case k < 9:
		i := rng.IntN(len(lineStarts))
		end := len(src)
		if i+1 < len(lineStarts) {
			end = lineStarts[i+1]
		}
		return fmt.Sprintf("line at offset %d removed", lineStarts[i]), splice(lineStarts[i], end-lineStarts[i], "")
	default:
		return "an unexported function added", append(slices.Clone(src), "\nfunc zzAdded() int { return 1 }\n"...)
	}
}

// TestGenCacheImplementationEdits: editing function bodies, adding or
// removing a helper function and its comments next to the interface hits
// the cache; adding a declaration whose name the generated code uses, a
// method, or changing a dependency's doc comment misses it, and each run
// gives what a run without the cache gives.
func TestGenCacheImplementationEdits(t *testing.T) {
	root := t.TempDir()
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	goldentest.WriteModule(t, root, repo)
	dir := filepath.Join(root, "svc")
	const svc = `package svc

import (
	"context"

	"rpcgen.test/golden/svc/dep"
)

// Store keeps notes.
type Store interface {
	// Put stores a note.
	Put(ctx context.Context, n dep.Note) (dep.Note, error)
}

type store struct{ n int }

// Put counts.
func (s *store) Put(ctx context.Context, n dep.Note) (dep.Note, error) {
	s.n++
	return n, nil
}
`
	const depSrc = `package dep

// Note is a note.
type Note struct {
	// Title says what it is about.
	Title string ` + "`json:\"title\"`" + `
}
`
	cfg := Config{Dir: dir, Interfaces: []string{"Store"}, Output: "store_rpcgen.go"}
	cached := Cache{Dir: filepath.Join(root, "cache")}
	out := filepath.Join(dir, cfg.Output)
	edit := func(name string, files map[string]string, wantHit bool) []byte {
		t.Helper()
		goldentest.MustWrite(t, filepath.Join(dir, "svc.go"), []byte(svc))
		goldentest.MustWrite(t, filepath.Join(dir, "dep", "dep.go"), []byte(depSrc))
		os.RemoveAll(cached.Dir)
		if _, err := cached.Generate(cfg); err != nil {
			t.Fatal(err)
		}
		plantAll(t, cached.Dir)
		for p, src := range files {
			goldentest.MustWrite(t, filepath.Join(dir, p), []byte(src))
		}
		got, err := cached.Generate(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := Generate(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if hit := bytes.HasSuffix(got[out], []byte(plantMark)); hit != wantHit {
			t.Errorf("%s: cache hit %v, want %v", name, hit, wantHit)
		} else if !hit && !maps.EqualFunc(got, want, bytes.Equal) {
			t.Errorf("%s: output differs from a run without the cache", name)
		}
		return want[out]
	}
	base := edit("nothing changed", nil, true)
	if !bytes.Contains(base, []byte("func readDepNote(")) || !bytes.Contains(base, []byte("Title says what it is about.")) {
		t.Fatalf("the output no longer has the decoder readDepNote or the field's doc; this test needs both:\n%s", base)
	}
	body := strings.Replace(svc, "s.n++", "s.n += 2 // twice", 1)
	edit("a function body edited", map[string]string{"svc.go": body}, true)
	edit("a helper added", map[string]string{"svc.go": svc + "\n// helper helps.\nfunc helper(x int) int { return x } // really\n"}, true)
	edit("an init added", map[string]string{"svc.go": svc + "\nfunc init() { _ = helper2() }\n\nfunc helper2() int { return 1 }\n"}, true)
	edit("a helper removed", map[string]string{"svc.go": strings.Replace(svc, "type store struct{ n int }", "type store struct{ n int }\n\nfunc unused() {}", 1)}, true)
	edit("a method added", map[string]string{"svc.go": svc + "\nfunc (s *store) Extra() {}\n"}, false)
	edit("an exported function added", map[string]string{"svc.go": svc + "\nfunc NewStore() Store { return nil }\n"}, false)
	edit("a type added", map[string]string{"svc.go": svc + "\ntype extra int\n"}, false)
	clash := edit("a function named like a generated decoder", map[string]string{"svc.go": svc + "\nfunc readDepNote() {}\n"}, false)
	if !bytes.Contains(clash, []byte("func readDepNote2(")) {
		t.Errorf("the generated decoder should have given way to the package's readDepNote:\n%s", clash)
	}
	doc := edit("a dependency's doc comment changed", map[string]string{"dep/dep.go": strings.Replace(depSrc, "Title says what it is about.", "Title names the note.", 1)}, false)
	if !bytes.Contains(doc, []byte("Title names the note.")) {
		t.Errorf("the new doc comment is not in the output")
	}
	edit("a dependency's field added", map[string]string{"dep/dep.go": strings.Replace(depSrc, "}\n", "\tBody string `json:\"body\"`\n}\n", 1)}, false)
	edit("an empty line between a doc comment and its type", map[string]string{"svc.go": strings.Replace(svc, "// Store keeps notes.\n", "// Store keeps notes.\n\n", 1)}, false)
}
