package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain points the format cache at a directory of the test run's own,
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

// TestFormatCache checks that a run stores its formatting in the cache, that
// a second run of the same input gives the same file, and that --no-cache
// neither reads nor writes it.
func TestFormatCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("RPCGEN_CACHE", cache)
	dir := newPackage(t, calcSrc)
	entries := func() int {
		des, _ := os.ReadDir(filepath.Join(cache, "format"))
		return len(des)
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
