package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain points the caches at a directory of the test run's own,
// so that tests neither read nor fill the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rpcgen-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("RPCGEN_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestCaches checks that a run stores its output, its formatting and its
// package's file list in the cache, that a second run of the same input gives the same file, and that
// --no-cache neither reads nor writes them.
func TestCaches(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("RPCGEN_CACHE", cache)
	dir := newPackage(t, calcSrc)
	entries := func() int {
		format, _ := os.ReadDir(filepath.Join(cache, "format"))
		gen, _ := os.ReadDir(filepath.Join(cache, "gen"))
		list, _ := os.ReadDir(filepath.Join(cache, "list"))
		if len(format) != len(gen) || len(list) != len(gen) {
			t.Fatalf("%d format cache entries, %d output entries, %d list entries", len(format), len(gen), len(list))
		}
		return len(gen)
	}
	if code, _, stderr := runIn(t, dir, "--no-cache", "Calculator"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := entries(); n != 0 {
		t.Fatalf("--no-cache wrote %d cache entries", n)
	}
	uncached, err := os.ReadFile(filepath.Join(dir, "calculator_rpcgen.go"))
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		if code, _, stderr := runIn(t, dir, "Calculator"); code != exitOK {
			t.Fatalf("run %d: exit %d: %s", run, code, stderr)
		}
		if n := entries(); n != 1 {
			t.Fatalf("run %d: %d cache entries, want 1", run, n)
		}
		got, err := os.ReadFile(filepath.Join(dir, "calculator_rpcgen.go"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(uncached) {
			t.Fatalf("run %d: the output differs from the uncached run's", run)
		}
	}
}

func TestSameContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	want := []byte(strings.Repeat("generated\n", 20000)) // more than one read
	if same, err := sameContent(path, want); same || err != nil {
		t.Fatalf("missing file: %v, %v", same, err)
	}
	for _, c := range []struct {
		name string
		have []byte
		same bool
	}{
		{"equal", want, true},
		{"one byte differs at the end", append(bytes.Clone(want[:len(want)-1]), 'x'), false},
		{"one byte differs past the first read", append(append(bytes.Clone(want[:70000]), 'x'), want[70001:]...), false},
		{"shorter", want[:len(want)-1], false},
		{"longer", append(bytes.Clone(want), '\n'), false},
		{"empty", nil, false},
	} {
		if err := os.WriteFile(path, c.have, 0o644); err != nil {
			t.Fatal(err)
		}
		if same, err := sameContent(path, want); same != c.same || err != nil {
			t.Errorf("%s: %v, %v; want %v", c.name, same, err, c.same)
		}
	}
}
