// Package cache is the cache layer around the generator's pipeline: the
// output cache, which answers a run whose inputs an earlier run saw, and the
// disk stores in which the load keeps go list's answers and the formatter
// keeps formatted pieces. generator.Generate uses none of it;
// generator.Cache.Generate runs the pipeline with a Layer.
package cache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/emit"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
	"github.com/rpcgen/rpcgen/generator/internal/skills"
)

// The generation cache keeps whole outputs, so that a run whose inputs an
// earlier run already saw skips building the model and emitting: what is
// left is loading the package, which go generate cannot avoid either.
//
// The key (genKey, gencache_key.go) digests everything an output is made
// of: the generator binary, the Go release, the Config, the package's files
// with their function bodies and unreferenced functions left out (they
// decide nothing the generator reads, so editing an implementation next to
// its interface still hits), and the dependencies' types as go/packages
// loaded them. What emission reads besides that is logged as it is read
// (inputLog) and stored with the entry: the source files of dependencies
// whose doc comments became descriptions, and the package-level names the
// generated code had to avoid. An entry is used only when every logged file
// still has the same content and every logged name is still declared, or
// not, as it was. A package with type errors never uses the cache.

// genCacheEntries is how many outputs the cache keeps; the least recently
// used go first.
const genCacheEntries = 64

// genCacheVersion changes whenever the key or the entry format changes.
const genCacheVersion = "rpcgen-gen-1"

// logHolds reports whether what l recorded is still true of pkg and the file
// system.
func logHolds(l *schema.InputLog, pkg *packages.Package) bool {
	for name, found := range l.Names {
		if (pkg.Types.Scope().Lookup(name) != nil) != found {
			return false
		}
	}
	for name, want := range l.Files {
		if dir, ok := strings.CutPrefix(name, skills.ListingPrefix); ok {
			if skills.ListingDigest(dir) != want {
				return false
			}
			continue
		}
		if schema.ContentDigest(os.ReadFile(name)) != want {
			return false
		}
	}
	return true
}

// genCache is one Generate call's place in the cache.
type genCache struct {
	dir, key string
	mapped   bool // answer with views of the mapped entry (Config.MapCache)
}

// lookup returns the outputs stored under the key, if their log holds.
func (c *genCache) lookup(pkg *packages.Package) (map[string][]byte, bool) {
	path := filepath.Join(c.dir, c.key)
	var b []byte
	var err error
	unmap := func() {}
	if c.mapped {
		b, unmap, err = mapFile(path)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, false
	}
	if len(b) < 4 {
		unmap()
		return nil, false
	}
	sum, payload := binary.LittleEndian.Uint32(b), b[4:]
	if crc32.Checksum(payload, Castagnoli) != sum {
		unmap()
		return nil, false
	}
	log, files, err := DecodeEntry(payload)
	if err != nil || !logHolds(log, pkg) {
		unmap()
		return nil, false
	}
	now := time.Now()
	os.Chtimes(path, now, now) // recently used; best effort
	return files, true
}

// Castagnoli is the table of the CRC-32C an entry starts with: an entry is
// the checksum of its payload, then the payload. The key already says what
// the entry is for; the checksum only catches an entry a disk damaged, and
// CRC-32C runs at memory speed on outputs of megabytes.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// store keeps files under the key with the log of what made them. Failing
// to write only costs the time a later hit would have saved.
func (c *genCache) store(log *schema.InputLog, files map[string][]byte) {
	payload := EncodeEntry(log, files)
	sum := binary.LittleEndian.AppendUint32(nil, crc32.Checksum(payload, Castagnoli))
	writeCacheFile(c.dir, filepath.Join(c.dir, c.key), genCacheEntries, sum, payload)
}

// EncodeEntry encodes an entry's payload: the logged files (name, digest),
// the logged names (name, declared), then the outputs (path, content);
// every string and byte slice is a uvarint length and its bytes, every list
// a uvarint count.
func EncodeEntry(log *schema.InputLog, files map[string][]byte) []byte {
	size := 64
	for p, b := range files {
		size += len(p) + len(b) + 20
	}
	buf := make([]byte, 0, size)
	str := func(s string) []byte {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	}
	buf = binary.AppendUvarint(buf, uint64(len(log.Files)))
	for _, name := range slices.Sorted(maps.Keys(log.Files)) {
		buf = str(name)
		buf = str(log.Files[name])
	}
	buf = binary.AppendUvarint(buf, uint64(len(log.Names)))
	for _, name := range slices.Sorted(maps.Keys(log.Names)) {
		buf = str(name)
		found := byte(0)
		if log.Names[name] {
			found = 1
		}
		buf = append(buf, found)
	}
	buf = binary.AppendUvarint(buf, uint64(len(files)))
	for _, p := range slices.Sorted(maps.Keys(files)) {
		buf = str(p)
		buf = binary.AppendUvarint(buf, uint64(len(files[p])))
		buf = append(buf, files[p]...)
	}
	return buf
}

var errBadEntry = errors.New("malformed generation cache entry")

// DecodeEntry decodes an entry's payload (see EncodeEntry), refusing a
// malformed one.
func DecodeEntry(b []byte) (*schema.InputLog, map[string][]byte, error) {
	next := func() ([]byte, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, errBadEntry
		}
		s := b[k : k+int(n)]
		b = b[k+int(n):]
		return s, nil
	}
	count := func() (int, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) {
			return 0, errBadEntry
		}
		b = b[k:]
		return int(n), nil
	}
	log := &schema.InputLog{Files: map[string]string{}, Names: map[string]bool{}}
	n, err := count()
	for range n {
		var name, sum []byte
		if name, err = next(); err == nil {
			sum, err = next()
		}
		if err != nil {
			return nil, nil, err
		}
		log.Files[string(name)] = string(sum)
	}
	if err != nil {
		return nil, nil, err
	}
	if n, err = count(); err != nil {
		return nil, nil, err
	}
	for range n {
		name, err := next()
		if err != nil || len(b) == 0 || b[0] > 1 {
			return nil, nil, errBadEntry
		}
		log.Names[string(name)] = b[0] == 1
		b = b[1:]
	}
	if n, err = count(); err != nil {
		return nil, nil, err
	}
	files := make(map[string][]byte, n)
	for range n {
		var p, content []byte
		if p, err = next(); err == nil {
			content, err = next()
		}
		if err != nil {
			return nil, nil, err
		}
		files[string(p)] = content[:len(content):len(content)]
	}
	if len(b) != 0 {
		return nil, nil, errBadEntry
	}
	return log, files, nil
}

// executableDigest identifies the running generator by the SHA-256 of its
// executable: a rebuilt rpcgen, whatever its version says, misses every
// entry an older build made. Digesting a 13 MB binary takes milliseconds,
// so the digest is kept in the cache directory next to the executable's
// path, size and modification time, and taken again when any of them
// changes.
func executableDigest(cacheDir string) (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	stamp := fmt.Sprintf("%s\x00%d\x00%d\x00", path, info.Size(), info.ModTime().UnixNano())
	name := sha256.Sum256([]byte(stamp))
	memo := filepath.Join(cacheDir, "exe", hex.EncodeToString(name[:16]))
	if b, err := os.ReadFile(memo); err == nil {
		if digest, ok := strings.CutPrefix(string(b), stamp); ok && len(digest) == 2*sha256.Size {
			return digest, nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	digest := hex.EncodeToString(h.Sum(nil))
	writeCacheFile(filepath.Dir(memo), memo, 16, []byte(stamp+digest))
	return digest, nil
}

// Layer is the cache layer around one run of the pipeline (see
// Cache.Generate): the list store for the load, the output cache between
// the load and the model, the piece store for formatting, and the log of
// what emission read. A nil layer is no cache.
type Layer struct {
	dir            string
	mapped         bool
	lists, formats *diskStore
	gen            *genCache // set by lookup when the output has a key
	log            *schema.InputLog
}

// NewLayer is the cache layer of one run over the cache directory dir;
// mapped answers output hits with the entry mapped read-only.
func NewLayer(dir string, mapped bool) *Layer {
	return &Layer{
		dir:     dir,
		mapped:  mapped,
		lists:   newDiskStore(filepath.Join(dir, "list"), listCacheEntries),
		formats: newDiskStore(filepath.Join(dir, "format"), formatCacheEntries),
		log:     &schema.InputLog{},
	}
}

// ListStore is the load's list store, nil without a layer.
func (l *Layer) ListStore() load.ListStore {
	if l == nil {
		return nil
	}
	return l.lists
}

// PieceStore is the formatter's piece store, nil without a layer.
func (l *Layer) PieceStore() emit.PieceStore {
	if l == nil {
		return nil
	}
	return l.formats
}

// Inputs is the log emission records its reads in, nil without a layer.
func (l *Layer) Inputs() *schema.InputLog {
	if l == nil {
		return nil
	}
	return l.log
}

// Lookup returns the outputs an earlier run stored for set on pkg, whose
// files' bytes srcs kept.
func (l *Layer) Lookup(set Settings, pkg *packages.Package, srcs *load.Sources) (map[string][]byte, bool) {
	if l == nil {
		return nil, false
	}
	key, ok := Key(l.dir, set, pkg, srcs)
	if !ok {
		return nil, false
	}
	l.gen = &genCache{dir: filepath.Join(l.dir, "gen"), key: key, mapped: l.mapped}
	return l.gen.lookup(pkg)
}

// Store keeps files under the key lookup found, if it found one.
func (l *Layer) Store(files map[string][]byte) {
	if l != nil && l.gen != nil {
		l.gen.store(l.log, files)
	}
}

// Done prunes the stores the run added to.
func (l *Layer) Done() {
	l.lists.prune()
	l.formats.prune()
}
