// Package generator turns Go interfaces into JSON-RPC 2.0 and MCP code. From
// an interface, its doc comments and //rpcgen: directives it makes one Go
// file holding method-name constants, a typed JSON-RPC client that
// implements the interface, a dispatcher that decodes and validates params
// as it reads them, MCP tools (with input and output JSON Schema),
// resources, prompts and completions, and a typed MCP client; and, when
// asked, a JSON Schema file for every method's params and result, an
// OpenRPC document, a TypeScript client and a Markdown reference.
//
// Generate is a function of the package's files and the Config: it returns
// the files it would write and writes nothing. Cache.Generate returns the
// same files with caches on disk around the run; the rpcgen command uses it
// and owns the writing. The work is done by the internal packages, one
// stage each: load, model, schema, emit and apidoc, with cache as the layer
// around them (docs/architecture.md).
package generator

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/apidoc"
	"github.com/rpcgen/rpcgen/generator/internal/cache"
	"github.com/rpcgen/rpcgen/generator/internal/contract"
	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/emit"
	"github.com/rpcgen/rpcgen/generator/internal/load"
	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
	"github.com/rpcgen/rpcgen/generator/internal/serverdoc"
	"github.com/rpcgen/rpcgen/generator/internal/skills"
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
	// TSRuntime is the path (relative to Dir unless absolute) of the
	// TypeScript runtime module the TypeScript client imports, which Generate
	// adds too; "" is rpcgen_runtime.ts beside the client. The runtime is the
	// same file for every client, so the clients of several packages share
	// one when they name one path.
	TSRuntime string
	// NoDiscover leaves rpc.discover out of the dispatcher, which otherwise
	// answers it with the OpenRPC document when OpenRPC is set.
	NoDiscover bool
	// APIVersion is the API version the OpenRPC document and the reference
	// state; "" is "0.0.0".
	APIVersion string
	// OpenRPCVersion is the OpenRPC version the document states: "" or
	// "1.3.2", or "1.2.6" for tools whose meta-schema knows no later one
	// (the document then leaves out error examples, which 1.2.6 cannot
	// state: its example pairings require a result).
	OpenRPCVersion string
	// Warn, when not nil, is told of each problem that does not stop
	// generation, such as a tool without a description; its message
	// starts with "warning:".
	Warn func(*Error)
	// Strict makes warnings errors: Generate then fails with them.
	Strict bool
	// Servers are the URLs the services are served at, for the OpenRPC
	// document's servers and the reference; each must be absolute.
	Servers []string
	// License (a name, such as an SPDX identifier) and LicenseURL, Contact,
	// ContactEmail and ContactURL go into the OpenRPC document's info and
	// the reference when not "".
	License, LicenseURL, Contact, ContactEmail, ContactURL string
	// ServerJSON and ServerCard, when not "", are the paths (relative to
	// Dir unless absolute) to which Generate adds the MCP registry's
	// server.json (schema 2025-12-11) and a Server Card (SEP-2127, a
	// draft), describing the server as Server says, at version APIVersion.
	ServerJSON, ServerCard string
	// Server describes the server for ServerJSON and ServerCard.
	Server ServerMeta
}

// ServerMeta describes a server to the MCP registry and in its Server Card.
// docs/generating.md says what each field takes; Generate reports a value
// the registry or the card's schema would refuse.
type ServerMeta struct {
	// Name is the server's name in reverse-DNS form (io.github.you/notes);
	// Title a display name; Description at most 100 characters (default:
	// the first sentence of the first interface's doc comment).
	Name, Title, Description string
	// Repository is the URL of the source repository (github.com or
	// gitlab.com), RepositorySubfolder the server's directory in it, and
	// WebsiteURL the server's home page.
	Repository, RepositorySubfolder, WebsiteURL string
	// Packages are TYPE:IDENTIFIER (npm, pypi, nuget or oci), run over
	// stdio; Remotes are URL (Streamable HTTP), streamable-http=URL or
	// sse=URL.
	Packages, Remotes []string
	// Env are NAME=DESCRIPTION, the environment variables the server reads
	// (set for each package); EnvRequired and EnvSecret name those that
	// must be set and those that hold secrets.
	Env, EnvRequired, EnvSecret []string
}

// apiOptions are cfg's settings of the outputs that are not Go.
func apiOptions(cfg Config) apidoc.Options {
	return apidoc.Options{OpenRPC: cfg.OpenRPC, TypeScript: cfg.TypeScript, TSRuntime: cfg.TSRuntime, Docs: cfg.Docs, APIVersion: cfg.APIVersion, OpenRPCVersion: cfg.OpenRPCVersion,
		NoDiscover: cfg.NoDiscover, Servers: cfg.Servers, License: cfg.License, LicenseURL: cfg.LicenseURL,
		Contact: cfg.Contact, ContactEmail: cfg.ContactEmail, ContactURL: cfg.ContactURL}
}

// Generate loads the package, checks the interfaces, and returns the
// generated files keyed by path (Output joined to Dir, the schema files
// under SchemaDir, and the OpenRPC, TypeScript (with the TypeScript
// runtime) and Markdown files asked for). An input problem is reported as an ErrorList of positioned errors,
// all of them at once. Generate writes nothing and reads no cache: it is a
// function of the package's files and the Config (Cache.Generate is the
// same with caches around it).
func Generate(cfg Config) (map[string][]byte, error) {
	return generate(cfg, false, nil)
}

// generate is Generate with the cache layer when not nil; deepSchemas makes
// the schema builder copy every schema it hands out (see schema.Builder's
// deep).
func generate(cfg Config, deepSchemas bool, layer *cache.Layer) (map[string][]byte, error) {
	files, err := run(cfg, deepSchemas, layer)
	if list, ok := err.(diag.List); ok {
		err = errorList(list)
	}
	if err != nil {
		return files, err
	}
	warnings := takeWarnings(files)
	if cfg.Strict && len(warnings) > 0 {
		return nil, errorList(warnings)
	}
	if cfg.Warn != nil {
		for _, w := range warnings {
			cfg.Warn((*Error)(w))
		}
	}
	return files, nil
}

// run is the pipeline: load, the output cache's lookup, the model, the
// outputs that are not Go (the Go file answers rpc.discover with one of
// them), the Go file, the schema files, and the output cache's store.
func run(cfg Config, deepSchemas bool, layer *cache.Layer) (map[string][]byte, error) {
	return runWith(cfg, deepSchemas, layer, nil)
}

// runWith is run, and when snap is not nil it also fills *snap with the
// contract of the services (see Contract).
func runWith(cfg Config, deepSchemas bool, layer *cache.Layer, snap **contract.Snapshot) (map[string][]byte, error) {
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
		_, first := load.SplitQualified(cfg.Interfaces[0])
		out = naming.OutputName(first)
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(dir, out)
	}

	if err := apiOptions(cfg).Check(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, name := range cfg.Interfaces {
		if seen[name] {
			return nil, fmt.Errorf("interface %s named twice", name)
		}
		seen[name] = true
	}
	var srcs *load.Sources
	if layer != nil {
		srcs = &load.Sources{}
	}
	pkg, typeErrs, err := load.LoadSources(dir, out, cfg.BuildTags, srcs, layer.ListStore(), foreignOf(cfg.Interfaces)...)
	if err != nil {
		return nil, err
	}
	if err := checkOutputDir(pkg.Fset, dir, out, pkg.Name); err != nil {
		return nil, err
	}
	if len(typeErrs) == 0 {
		if files, ok := layer.Lookup(settingsOf(cfg, dir, out), pkg, srcs); ok {
			return files, nil
		}
	}
	inputs := layer.Inputs()
	services, warnings, err := model.BuildWith(pkg, cfg.Interfaces, typeErrs, model.Options{
		ReadFile: func(name string) ([]byte, error) {
			if dir, ok := strings.CutPrefix(name, skills.ListingPrefix); ok {
				inputs.Listed(name, skills.ListingDigest(dir)) // the files of a skills directory
				return nil, nil
			}
			src, err := os.ReadFile(name)
			inputs.ReadFile(name, src, err) // another package's source the model read: its docs and directives
			return src, err
		},
	})
	errs := &diag.Collector{Fset: pkg.Fset}
	if err != nil {
		list, ok := err.(diag.List)
		if !ok || services == nil {
			return nil, err
		}
		// Go on with what the model built, so that one run reports the
		// problems of every stage: the schemas', the Go file's.
		errs.List = append(errs.List, list...)
	}
	sg := schema.NewBuilder(pkg, errs)
	if len(services) > 0 {
		sg.TypeSchemas = services[0].TypeSchemas // one map for the run
	}
	sg.Deep = deepSchemas
	sg.Docs.Log = layer.Inputs()
	schema.CheckExamples(sg, services) // documented examples true to their schemas
	if len(errs.List) > 0 {
		// What was built without a problem shows the problems of the
		// later stages: the schemas', the decoders', the names the package
		// declares too.
		emit.Check(pkg.PkgPath, pkg.Name, services, sg)
		if src := partialGoFile(pkg, services, deepSchemas); src != nil {
			checkCollisions(pkg, src, out, errs)
		}
		return nil, errs.Err()
	}
	var apiOut map[string][]byte
	var discover []byte
	if cfg.OpenRPC != "" || cfg.TypeScript != "" || cfg.Docs != "" {
		if apiOut, discover, err = apidoc.Files(pkg, sg.Docs, services, apiOptions(cfg), dir); err != nil {
			return nil, err
		}
	}
	var doc string // the first interface's, for a server.json's description
	if len(services) > 0 {
		doc = services[0].Doc
	}
	listing, err := serverdoc.Files(serverMeta(cfg, services), serverdoc.Outputs{
		ServerJSON: joinDir(dir, cfg.ServerJSON), ServerCard: joinDir(dir, cfg.ServerCard),
		Version: cfg.APIVersion, Doc: doc,
	})
	if err != nil {
		return nil, err
	}
	for p, b := range listing {
		if _, dup := apiOut[p]; dup || p == out {
			return nil, fmt.Errorf("two outputs would be written to %s: give them different paths", p)
		}
		if apiOut == nil {
			apiOut = map[string][]byte{}
		}
		apiOut[p] = b
	}
	if _, dup := apiOut[out]; dup {
		return nil, fmt.Errorf("two outputs would be written to %s: give them different paths", out)
	}
	src, tools, err := emit.GoFile(pkg.PkgPath, pkg.Name, services, sg, discover, layer.PieceStore())
	if err == nil {
		checkCollisions(pkg, src, out, errs)
	}
	if snap != nil && err == nil {
		if *snap, err = buildContract(pkg, sg, services, tools, src, dir); err != nil {
			return nil, err
		}
	}
	files := map[string][]byte{out: src}
	maps.Copy(files, apiOut)
	if cfg.SchemaDir != "" {
		schemaDir := cfg.SchemaDir
		if !filepath.IsAbs(schemaDir) {
			schemaDir = filepath.Join(dir, schemaDir)
		}
		maps.Copy(files, schema.Files(sg, services, schemaDir))
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return map[string][]byte{out: src}, err
	}
	putWarnings(files, warnings)
	layer.Store(files)
	return files, nil
}
