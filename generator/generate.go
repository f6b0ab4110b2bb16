// Package generator turns Go interfaces into JSON-RPC 2.0 clients and
// dispatchers; it reads packages and returns file contents, writing nothing.
package generator

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
)

// Config says what to generate.
type Config struct {
	// Dir is the directory of the package holding the interfaces; "" is the
	// current directory.
	Dir string
	// Interfaces names the interfaces to generate for, in output order.
	Interfaces []string
	// Output is the path of the generated Go file, relative to Dir unless
	// absolute. "" means the first interface's name in lower case plus
	// "_rpcgen.go", e.g. "calculator_rpcgen.go".
	Output string
	// BuildTags are passed to the build system when loading the package.
	BuildTags []string
	// SchemaDir, when not "", is a directory (relative to Dir unless
	// absolute) to which Generate adds a JSON Schema file for the params and
	// for the result of every method; see schemaFiles.
	SchemaDir string
	// OpenRPC, TypeScript and Docs, when not "", are the paths (relative to
	// Dir unless absolute) to which Generate adds an OpenRPC document, a
	// TypeScript client and a Markdown reference of the services.
	OpenRPC, TypeScript, Docs string
	// NoDiscover leaves rpc.discover out of the dispatcher, which otherwise
	// answers it with the OpenRPC document when OpenRPC is set.
	NoDiscover bool
	// APIVersion is the API version the OpenRPC document and the reference
	// state; "" is "0.0.0".
	APIVersion string
}

// Generate loads the package, checks the interfaces, and returns the
// generated files keyed by path (Output joined to Dir, the schema files
// under SchemaDir, and the OpenRPC, TypeScript and Markdown files asked
// for). An input problem is reported as an ErrorList of positioned errors,
// all of them at once. Generate writes nothing and reads no cache: it is a
// function of the package's files and the Config (Cache.Generate is the
// same with caches around it).
func Generate(cfg Config) (map[string][]byte, error) {
	return generate(cfg, false, nil)
}

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
	layer := newCacheLayer(c.Dir, c.Map)
	defer layer.done()
	return generate(cfg, false, layer)
}

// generate is Generate with the cache layer when not nil; deepSchemas makes
// the schema builder copy every schema it hands out (see schemaGen.deep).
func generate(cfg Config, deepSchemas bool, layer *cacheLayer) (map[string][]byte, error) {
	if len(cfg.Interfaces) == 0 {
		return nil, errors.New("no interface named: give at least one interface name")
	}
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	out := cfg.Output
	if out == "" {
		out = outputName(cfg.Interfaces[0])
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(dir, out)
	}

	seen := map[string]bool{}
	for _, name := range cfg.Interfaces {
		if seen[name] {
			return nil, fmt.Errorf("interface %s named twice", name)
		}
		seen[name] = true
	}
	var srcs *sourceSet
	if layer != nil {
		srcs = &sourceSet{}
	}
	pkg, typeErrs, err := loadPackageSources(dir, out, cfg.BuildTags, srcs, layer.listStore())
	if err != nil {
		return nil, err
	}
	if len(typeErrs) == 0 {
		if files, ok := layer.lookup(settingsOf(cfg, dir, out), pkg, srcs); ok {
			return files, nil
		}
	}
	services, err := buildServices(pkg, cfg.Interfaces, typeErrs)
	if err != nil {
		return nil, err
	}
	errs := &errorCollector{fset: pkg.Fset}
	sg := newSchemaGen(pkg, errs)
	sg.deep = deepSchemas
	sg.docs.log = layer.inputs()
	var apiOut map[string][]byte
	var discover []byte
	if cfg.OpenRPC != "" || cfg.TypeScript != "" || cfg.Docs != "" {
		if apiOut, discover, err = apiFiles(pkg, sg.docs, services, cfg, dir); err != nil {
			return nil, err
		}
	}
	src, err := emitGo(pkg.PkgPath, pkg.Name, services, sg, discover, layer.pieceStore())
	files := map[string][]byte{out: src}
	maps.Copy(files, apiOut)
	if cfg.SchemaDir != "" {
		schemaDir := cfg.SchemaDir
		if !filepath.IsAbs(schemaDir) {
			schemaDir = filepath.Join(dir, schemaDir)
		}
		maps.Copy(files, schemaFiles(sg, services, schemaDir))
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	if err != nil {
		return map[string][]byte{out: src}, err
	}
	layer.store(files)
	return files, nil
}

// settingsOf is what the output cache's key takes of cfg, with dir and out
// its package directory and Go output as Generate resolved them.
func settingsOf(cfg Config, dir, out string) genSettings {
	return genSettings{Dir: dir, Out: out, Interfaces: cfg.Interfaces, BuildTags: cfg.BuildTags,
		Options: []string{cfg.SchemaDir, cfg.OpenRPC, cfg.TypeScript, cfg.Docs, cfg.APIVersion, strconv.FormatBool(cfg.NoDiscover)}}
}
