// Package goldentest serves the generator's tests the golden cases of
// testdata/golden: it parses their archives and writes their packages into
// a module of their own that builds against this repository.
package goldentest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/rpcgen/rpcgen/internal/cmdline"
)

// Module is the module every golden case lives in, so that one
// "go vet" compiles all outputs against this repository's runtime.
const Module = "rpcgen.test/golden"

// WriteModule writes below root the go.mod and go.sum of the module the
// golden cases are extracted into, which builds against the repository at
// repo.
func WriteModule(t *testing.T, root, repo string) {
	t.Helper()
	gomod := "module " + Module + "\n\ngo 1.26.0\n\nrequire github.com/rpcgen/rpcgen v0.0.0\n\nreplace github.com/rpcgen/rpcgen => " + repo + "\n"
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	MustWrite(t, filepath.Join(root, "go.mod"), []byte(gomod))
	MustWrite(t, filepath.Join(root, "go.sum"), sum)
}

// Extract writes the package files of ar below dir and returns the
// generator settings its "args" file describes: the words of a
// //go:generate line after the command (cmdline.SplitWords), parsed with
// the rpcgen command's own flag set, less the test's own words
// (OnlyAPIWord, OnlySchemasWord).
func Extract(t *testing.T, ar *txtar.Archive, dir string) Case {
	t.Helper()
	cfg := Case{Dir: dir}
	for _, f := range ar.Files {
		switch {
		case f.Name == "args":
			words, err := cmdline.SplitWords(strings.TrimSpace(string(f.Data)))
			if err != nil {
				t.Fatalf("args: %v", err)
			}
			words = slices.DeleteFunc(words, func(w string) bool { return w == OnlyAPIWord || w == OnlySchemasWord })
			fs := cmdline.NewFlagSet(&cfg.Flags, io.Discard)
			if err := fs.Parse(words); err != nil {
				t.Fatalf("args: %v", err)
			}
			cfg.Interfaces = fs.Args()
		case strings.HasPrefix(f.Name, "want/"):
		default:
			MustWrite(t, filepath.Join(dir, f.Name), f.Data)
		}
	}
	return cfg
}

// HasFile reports whether ar holds a file called name.
func HasFile(ar *txtar.Archive, name string) bool {
	return slices.ContainsFunc(ar.Files, func(f txtar.File) bool { return f.Name == name })
}

// MustWrite writes data to path, making its directory, or fails t.
func MustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Set is goldenCases, with the cases that expect an error too
// when withErrors is set.
func Set(t *testing.T, withErrors bool) map[string]Case {
	t.Helper()
	repo, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(repo, "testdata", "golden", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	root := t.TempDir()
	WriteModule(t, root, repo)
	cases := map[string]Case{}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !withErrors && HasFile(ar, "want/stderr") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		cases[name] = Extract(t, ar, filepath.Join(root, name))
	}
	return cases
}

// Case is a golden case as its "args" file describes it: the package in
// Dir, the interfaces and the flags.
type Case struct {
	Dir        string
	Interfaces []string
	Flags      cmdline.Options
}

// RepoRoot is the root of this repository: the directory above the
// working directory whose go.mod declares its module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/rpcgen/rpcgen\n") {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("not inside the rpcgen repository")
		}
		dir = up
	}
}

// OnlyAPIWord in a golden case's "args" keeps only the OpenRPC, TypeScript
// and Markdown outputs (and want/stderr) as the case's expected output, so
// that such a case does not change whenever the emitted Go code does. The
// Go file is still generated and compiled.
const OnlyAPIWord = "--only-api"

// OnlySchemasWord in a golden case's "args" keeps only the --schema-dir files
// (and want/stderr) as the case's expected output: a schema case then tests
// the schemas alone and does not change whenever the emitted Go code does.
// The Go file is still generated and compiled.
const OnlySchemasWord = "--only-schemas"
