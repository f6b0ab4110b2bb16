package generator

import (
	"github.com/rpcgen/rpcgen/generator/internal/cache"
)

// Cache keeps, in a directory, what earlier runs of Generate computed,
// so that a run with inputs an earlier one saw skips work: the outputs
// themselves, keyed by everything they are made of, the formatted pieces
// of the Go source, and what go list said of the package's files. The
// rpcgen command wraps every run in one (its directory is DefaultCacheDir
// unless --no-cache).
type Cache struct {
	// Dir is the cache directory; "" is no cache.
	Dir string
	// Map lets Generate answer from the output cache with the contents
	// of the cache entry mapped into memory (on Unix systems) rather than
	// read into the heap, which for outputs of megabytes is faster. What
	// it returns is then read-only (writing to it faults) and stays mapped
	// until the process exits. The rpcgen command sets it; a program that
	// changes what Generate returns, or runs it many times, should not.
	Map bool
}

// Generate is Generate with the cache: it returns the same files, byte for
// byte, reading and filling the cache directory on the way.
func (c Cache) Generate(cfg Config) (map[string][]byte, error) {
	if c.Dir == "" {
		return Generate(cfg)
	}
	layer := cache.NewLayer(c.Dir, c.Map)
	defer layer.Done()
	return generate(cfg, false, layer)
}

// DefaultCacheDir is the cache directory rpcgen uses when RPCGEN_CACHE is
// not set: "rpcgen" under os.UserCacheDir. It returns "" when there is no
// user cache directory, or RPCGEN_CACHE is "off".
func DefaultCacheDir() string { return cache.DefaultDir() }
