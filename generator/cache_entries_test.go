package generator

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/cache"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// plantEntry rewrites the generation cache entry at path so that every
// output ends with plantMark, which no generator writes, keeping its log and
// its warnings,
// and returns the planted outputs.
func plantEntry(t *testing.T, path string) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log, files, err := cache.DecodeEntry(b[4:])
	if err != nil {
		t.Fatal(err)
	}
	planted, stored := map[string][]byte{}, map[string][]byte{}
	for p, src := range files {
		if p == warningsFile { // not an output: kept as it is
			stored[p] = src
			continue
		}
		planted[p] = append(bytes.Clone(src), plantMark...)
		stored[p] = planted[p]
	}
	payload := cache.EncodeEntry(log, stored)
	sum := binary.LittleEndian.AppendUint32(nil, crc32.Checksum(payload, cache.Castagnoli))
	if err := os.WriteFile(path, append(sum, payload...), 0o644); err != nil {
		t.Fatal(err)
	}
	return planted
}

const plantMark = "// planted\n"

// plantAll appends plantMark to every output of every entry under dir.
func plantAll(t *testing.T, dir string) {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(dir, "gen", "[0-9a-f]*"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no cache entries (%v)", err)
	}
	for _, e := range entries {
		plantEntry(t, e)
	}
}

// TestGenCacheUnusable: a cache directory that cannot be created (its path
// is a file) or holds a damaged entry costs nothing but the cache: the
// outputs are what a run without a cache gives.
func TestGenCacheUnusable(t *testing.T) {
	cases := goldenCases(t)
	cfg := cases["basic"]
	want, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(t.TempDir(), "file")
	goldentest.MustWrite(t, blocker, []byte("not a directory"))
	cached := Cache{Dir: blocker}
	if got, err := cached.Generate(cfg); err != nil || !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("cache dir is a file: outputs differ (%v)", err)
	}

	cached = Cache{Dir: t.TempDir()}
	if _, err := cached.Generate(cfg); err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(cached.Dir, "gen", "[0-9a-f]*"))
	if len(entries) != 1 {
		t.Fatalf("want one entry, have %v", entries)
	}
	good, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{false, true} {
		cached.Map = mapped
		for name, damaged := range map[string][]byte{
			"a flipped byte": func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 1; return b }(),
			"cut short":      good[:len(good)/2],
			"empty":          nil,
			"checksum only":  good[:4],
		} {
			goldentest.MustWrite(t, entries[0], damaged)
			if got, err := cached.Generate(cfg); err != nil || !maps.EqualFunc(got, want, bytes.Equal) {
				t.Errorf("%s, mapped %v: outputs differ (%v)", name, mapped, err)
			}
		}
	}
}

// TestGenCacheMapped: with MapCache, a hit answers with the entry's
// contents, the same as a read one.
func TestGenCacheMapped(t *testing.T) {
	cfg := goldenCases(t)["basic"]
	cached := Cache{Dir: t.TempDir()}
	want, err := cached.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := filepath.Glob(filepath.Join(cached.Dir, "gen", "[0-9a-f]*"))
	if len(entries) != 1 {
		t.Fatalf("want one entry, have %v", entries)
	}
	b, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	log, files, err := cache.DecodeEntry(b[4:])
	if err != nil {
		t.Fatal(err)
	}
	// A marker in the entry shows the answer came from it.
	for p := range files {
		files[p] = append(bytes.Clone(files[p]), "// marker\n"...)
	}
	payload := cache.EncodeEntry(log, files)
	goldentest.MustWrite(t, entries[0], append(binary.LittleEndian.AppendUint32(nil, crc32.Checksum(payload, cache.Castagnoli)), payload...))
	cached.Map = true
	got, err := cached.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if !bytes.Equal(got[p], append(bytes.Clone(w), "// marker\n"...)) {
			t.Errorf("%s: not the entry's content", p)
		}
	}
}
