package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"go/format"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// The format cache keeps the formatted form of generated Go source, piece
// by piece as formatSource cuts it, keyed by each piece as jennifer renders
// it. Formatting is the largest step for a big service; when the output
// cache (gencache.go) misses, the rendering is often the same as before
// (the change decided nothing the output shows) or differs in one place (a
// method's doc comment), so a run formats only the pieces it has not seen.
// The key is a digest of the unformatted piece and of the Go release whose
// go/format made the entry, so an entry can only ever be what format.Source
// gives for it; an entry that does not match the digest it carries (a
// torn write, a disk error) is ignored and overwritten.

// formatCacheEntries is how many entries the cache keeps, each a piece of a
// generated file (pieces are about 40 KiB: a 2.9 MB file is some 70); the least
// recently used go first.
const formatCacheEntries = 512

// formatCacheVersion changes whenever the way an entry is made or stored
// changes, so that old entries miss.
const formatCacheVersion = "rpcgen-format-1"

// DefaultCacheDir is the cache directory rpcgen uses when
// RPCGEN_CACHE is not set: "rpcgen" under os.UserCacheDir. It returns ""
// when there is no user cache directory, or RPCGEN_CACHE is "off".
func DefaultCacheDir() string {
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

// formatCached returns formatSource(src), taking each piece formatSource
// formats from the cache under dir when an earlier run stored it there;
// dir "" means no cache. Caching pieces rather than the whole file means a
// change to one method reformats only the piece holding it. Failing to read
// or write the cache only costs the time it would have saved.
func formatCached(src []byte, dir string) ([]byte, error) {
	if dir == "" {
		return formatSource(src)
	}
	dir = filepath.Join(dir, "format")
	var wrote atomic.Bool
	out, err := formatPieces(src, func(piece []byte) ([]byte, error) {
		path := filepath.Join(dir, formatKey(piece))
		if out, ok := readFormatEntry(path); ok {
			now := time.Now()
			os.Chtimes(path, now, now) // recently used; best effort
			return out, nil
		}
		out, err := format.Source(piece)
		if err == nil {
			sum := sha256.Sum256(out)
			writeCacheFile(dir, path, 0, sum[:], out)
			wrote.Store(true)
		}
		return out, err
	})
	if wrote.Load() {
		pruneFormatCache(dir, formatCacheEntries)
	}
	return out, err
}

func formatKey(src []byte) string {
	h := sha256.New()
	h.Write([]byte(formatCacheVersion + "\x00" + runtime.Version() + "\x00"))
	h.Write(src)
	return hex.EncodeToString(h.Sum(nil))
}

// An entry is the SHA-256 of the formatted source followed by the source.
func readFormatEntry(path string) ([]byte, bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < sha256.Size {
		return nil, false
	}
	sum, out := b[:sha256.Size], b[sha256.Size:]
	if got := sha256.Sum256(out); !bytes.Equal(got[:], sum) {
		return nil, false
	}
	return out, true
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
		pruneFormatCache(dir, keep)
	}
}

// pruneFormatCache removes the least recently used entries beyond keep, and
// temporary files an interrupted run left behind.
func pruneFormatCache(dir string, keep int) {
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
