package cache

import (
	"crypto/sha256"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generator/internal/emit"
)

const unformatted = "package p\n\n\nfunc  F( a int )int{ return a }\n"

func TestFormatCacheHitAndMiss(t *testing.T) {
	dir := t.TempDir()
	want, err := emit.FormatSource([]byte(unformatted))
	if err != nil {
		t.Fatal(err)
	}
	got, err := formatIn([]byte(unformatted), dir)
	if err != nil || string(got) != string(want) {
		t.Fatalf("first run: %q, %v; want %q", got, err, want)
	}
	path := filepath.Join(dir, "format", emit.FormatKey([]byte(unformatted)))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no entry after a miss: %v", err)
	}
	// A valid entry is used as it is: plant one that formatting would never
	// produce and see it come back.
	planted := []byte("package p // from the cache\n")
	writeEntry(t, path, planted)
	got, err = formatIn([]byte(unformatted), dir)
	if err != nil || string(got) != string(planted) {
		t.Fatalf("hit: %q, %v; want the cached %q", got, err, planted)
	}
	// Another source misses.
	other := unformatted + "var  x=1\n"
	if got, err := formatIn([]byte(other), dir); err != nil || string(got) == string(planted) {
		t.Fatalf("other source: %q, %v", got, err)
	}
}

func TestFormatCacheCorruptEntry(t *testing.T) {
	dir := t.TempDir()
	want, _ := emit.FormatSource([]byte(unformatted))
	path := filepath.Join(dir, "format", emit.FormatKey([]byte(unformatted)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"bad digest": append(make([]byte, sha256.Size), "package p // torn\n"...),
		"too short":  []byte("x"),
		"empty":      nil,
	} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := formatIn([]byte(unformatted), dir)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
		if out, ok := newDiskStore(filepath.Dir(path), 0).Get(filepath.Base(path)); !ok || string(out) != string(want) {
			t.Errorf("%s: the entry was not rewritten: %q, %v", name, out, ok)
		}
	}
}

func TestFormatCacheKeepsNoFailure(t *testing.T) {
	dir := t.TempDir()
	bad := []byte("package p\nfunc {\n")
	if _, err := formatIn(bad, dir); err == nil {
		t.Fatal("no error for source that does not parse")
	}
	if des, _ := os.ReadDir(filepath.Join(dir, "format")); len(des) != 0 {
		t.Errorf("a failed formatting left %d entries", len(des))
	}
}

func TestFormatCachePrune(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i := range 10 {
		path := filepath.Join(dir, fmt.Sprintf("entry%02d", i))
		writeEntry(t, path, []byte("x"))
		used := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(path, used, used); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(dir, ".tmp-1")
	fresh := filepath.Join(dir, ".tmp-2")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	pruneCacheDir(dir, 7)
	for i := range 10 {
		_, err := os.Stat(filepath.Join(dir, fmt.Sprintf("entry%02d", i)))
		if kept := err == nil; kept != (i >= 3) {
			t.Errorf("entry%02d kept=%v; want the 7 most recently used kept", i, kept)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a temporary file over an hour old was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a recent temporary file (a run in progress) was removed")
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("RPCGEN_CACHE", "off")
	if d := DefaultDir(); d != "" {
		t.Errorf("RPCGEN_CACHE=off: %q", d)
	}
	t.Setenv("RPCGEN_CACHE", "/some/dir")
	if d := DefaultDir(); d != "/some/dir" {
		t.Errorf("RPCGEN_CACHE=/some/dir: %q", d)
	}
	t.Setenv("RPCGEN_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	t.Setenv("HOME", "/home/u")
	if d, want := DefaultDir(), filepath.Join("/xdg", "rpcgen"); d != want {
		t.Errorf("default: %q, want %q", d, want)
	}
}

// formatIn formats src with the format cache under the cache directory dir.
func formatIn(src []byte, dir string) ([]byte, error) {
	return emit.FormatCached(src, newDiskStore(filepath.Join(dir, "format"), formatCacheEntries))
}

// writeEntry writes a valid cache entry holding out at path.
func writeEntry(t *testing.T, path string, out []byte) {
	t.Helper()
	sum := sha256.Sum256(out)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(sum[:], out...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFormatCachePieces: a big file is cached piece by piece, so changing
// one function in it formats (and stores) only the piece holding it, or that
// and the next when the change moves the cut after it, and the result is
// still what formatSource gives. Edits that change the length of the file
// move no other cut, since cuts depend on the text around them.
func TestFormatCachePieces(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var b strings.Builder
	b.WriteString("package p\n\n\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "// F%d is number %d.\nfunc  F%d( a int )int{ return a+%d }\n\n\n", i, i, i, i)
	}
	src := b.String()
	dir := t.TempDir()
	count := func() int {
		des, err := os.ReadDir(filepath.Join(dir, "format"))
		if err != nil {
			t.Fatal(err)
		}
		return len(des)
	}
	got, err := formatIn([]byte(src), dir)
	want, werr := format.Source([]byte(src))
	if err != nil || werr != nil || string(got) != string(want) {
		t.Fatalf("first run differs from format.Source (%v, %v)", err, werr)
	}
	pieces := count()
	if pieces < 8 {
		t.Fatalf("a %d-byte file was stored in %d pieces", len(src), pieces)
	}
	for _, c := range []struct {
		name, old, new string
		most           int // new pieces stored at most
	}{
		{"same length", "return a+1500 }", "return a-1500 }", 1},
		{"doc line added near the start", "// F20 is number 20.\n", "// F20 is number 20.\n// It gained a line.\n", 2},
		{"function removed", "// F700 is number 700.\nfunc  F700( a int )int{ return a+700 }\n\n\n", "", 2},
		{"function added", "// F2500 is", "func  G( ) { }\n\n\n// F2500 is", 2},
	} {
		changed := []byte(strings.Replace(src, c.old, c.new, 1))
		if string(changed) == src {
			t.Fatalf("%s: the edit changed nothing", c.name)
		}
		before := count()
		got, err = formatIn(changed, dir)
		want, werr = format.Source(changed)
		if err != nil || werr != nil || string(got) != string(want) {
			t.Fatalf("%s: the result differs from format.Source (%v, %v)", c.name, err, werr)
		}
		if added := count() - before; added < 1 || added > c.most {
			t.Errorf("%s: stored %d new pieces of %d, want 1 to %d", c.name, added, pieces, c.most)
		}
	}
}
