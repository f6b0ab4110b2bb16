package cache

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"
)

// The cache layer keeps its entries in directories below one cache
// directory: "gen" for whole outputs (gencache.go), "format" for formatted
// pieces of Go source and "list" for go list's answers. The last two are
// diskStores, which the stages they serve key and fill themselves.

// Entries each store keeps; the least recently used go first.
const (
	// formatCacheEntries: each is a piece of a generated file (pieces are
	// about 40 KiB: a 2.9 MB file is some 70).
	formatCacheEntries = 512
	listCacheEntries   = 64
)

// DefaultDir is the cache directory rpcgen uses when
// RPCGEN_CACHE is not set: "rpcgen" under os.UserCacheDir. It returns ""
// when there is no user cache directory, or RPCGEN_CACHE is "off".
func DefaultDir() string {
	switch dir := os.Getenv("RPCGEN_CACHE"); dir {
	case "off":
		return ""
	case "":
	default:
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "rpcgen")
}

// A diskStore keeps values under keys in a directory, each in a file named
// by its key holding the SHA-256 of the value and the value: an entry that
// does not match its digest (a torn write, a disk error) reads as missing
// and is overwritten. Failing to read or write only costs the time a hit
// would have saved.
type diskStore struct {
	dir   string
	keep  int // entries prune keeps
	wrote atomic.Bool
}

func newDiskStore(dir string, keep int) *diskStore { return &diskStore{dir: dir, keep: keep} }

// Get returns the value stored under key, marking the entry recently used.
func (s *diskStore) Get(key string) ([]byte, bool) {
	path := filepath.Join(s.dir, key)
	b, err := os.ReadFile(path)
	if err != nil || len(b) < sha256.Size {
		return nil, false
	}
	sum, value := b[:sha256.Size], b[sha256.Size:]
	if got := sha256.Sum256(value); !bytes.Equal(got[:], sum) {
		return nil, false
	}
	now := time.Now()
	os.Chtimes(path, now, now) // recently used; best effort
	return value, true
}

// Put stores value under key. It may be called from several goroutines.
func (s *diskStore) Put(key string, value []byte) {
	sum := sha256.Sum256(value)
	writeCacheFile(s.dir, filepath.Join(s.dir, key), 0, sum[:], value)
	s.wrote.Store(true)
}

// prune removes the least recently used entries beyond s.keep, when a Put
// added any.
func (s *diskStore) prune() {
	if s.wrote.Load() {
		pruneCacheDir(s.dir, s.keep)
	}
}

// writeCacheFile writes parts, one after the other, to path in dir, through
// a temporary file renamed into place so that no reader sees half an entry,
// then, when keep > 0, prunes dir to keep entries. Failures are ignored: a cache that cannot
// be written only costs the time it would have saved.
func writeCacheFile(dir, path string, keep int, parts ...[]byte) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	for _, p := range parts {
		if err == nil {
			_, err = tmp.Write(p)
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return
	}
	if keep > 0 {
		pruneCacheDir(dir, keep)
	}
}

// pruneCacheDir removes the least recently used entries beyond keep, and
// temporary files an interrupted run left behind.
func pruneCacheDir(dir string, keep int) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		used time.Time
	}
	var entries []entry
	for _, de := range des {
		info, err := de.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if name := de.Name(); len(name) > 0 && name[0] == '.' {
			if time.Since(info.ModTime()) > time.Hour {
				os.Remove(filepath.Join(dir, name))
			}
			continue
		}
		entries = append(entries, entry{de.Name(), info.ModTime()})
	}
	if len(entries) <= keep {
		return
	}
	slices.SortFunc(entries, func(a, b entry) int { return b.used.Compare(a.used) })
	for _, e := range entries[keep:] {
		os.Remove(filepath.Join(dir, e.name))
	}
}
