// Command rpcgen turns Go interfaces into a JSON-RPC 2.0 and MCP service. Run
// it from a //go:generate line in the package that declares them:
//
//	//go:generate go tool rpcgen Calculator
//
// For the named interfaces it writes one Go file (calculator_rpcgen.go)
// holding method-name constants, a typed JSON-RPC client that implements
// each interface, a dispatcher that decodes and validates params as it
// reads them, MCP tools with input and output JSON Schema, resources,
// resource templates, prompts and completions, a Register function that
// adds them all to an mcpserver.Server, and a typed MCP client. Flags add JSON
// Schema files (--schema-dir), an OpenRPC document (--openrpc), a
// TypeScript client (--ts) and a Markdown reference (--docs).
//
// The generation itself is generator.Generate, which returns the files and
// writes nothing; rpcgen writes them (leaving files whose content did not
// change alone), compares them with what is on disk under --check, and
// keeps the caches that make an unchanged run cheap (see --no-cache).
// docs/generating.md describes the directives and flags.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rpcgen/rpcgen/generator"
	"github.com/rpcgen/rpcgen/internal/cmdline"
	"github.com/rpcgen/rpcgen/internal/diff"
)

const modulePath = "github.com/rpcgen/rpcgen"

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // input errors, or --check found stale output
	exitUsage = 2
)

func main() {
	if os.Getenv("GOGC") == "" {
		// rpcgen is a short-lived process that builds a large syntax tree
		// and throws it away: collecting less often saves about a sixth of
		// the time on big services, for a higher peak heap.
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// newFlagSet is the command's flag set (cmdline.NewFlagSet) with its usage.
func newFlagSet(o *cmdline.Options, stderr io.Writer) *pflag.FlagSet {
	fs := cmdline.NewFlagSet(o, stderr)
	fs.Usage = func() { usage(fs, stderr) }
	return fs
}

func usage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `Usage: rpcgen [flags] Interface...
       rpcgen check [--tags a,b] [packages]
       rpcgen breaking --against FILE|git:REF [--safe] Interface...
       rpcgen contract [-o FILE] Interface...

rpcgen reads the Go package in the current directory (or --dir) and writes,
for the named interfaces, one Go file holding:

  - method-name constants and a typed JSON-RPC 2.0 client, <I>Client, that
    implements each interface over any runtime connection;
  - a dispatcher, New<I>Handler, that decodes and validates params as it
    reads them and calls the implementation;
  - MCP tools with input and output JSON Schema, and the resources,
    resource templates, prompts and completions that //rpcgen: directives
    declare, with Register<I> to add them all to an mcpserver.Server;
  - a typed MCP client, <I>MCPClient, that implements the interface too.

With flags it also writes JSON Schema files (--schema-dir), an OpenRPC
document (--openrpc), a TypeScript client (--ts, with the TypeScript
runtime it imports: rpcgen_runtime.ts beside it, or --ts-runtime) and a
Markdown reference (--docs). --check writes nothing and fails with a diff when any of these
files is stale.

rpcgen check ./... runs every //go:generate line that runs rpcgen in the
packages with --check, each with its own flags in its own directory (see
rpcgen check --help); --check without interfaces does it for the package
in the current directory.

Example, in the package that declares the interface:

	//go:generate go tool rpcgen Calculator

writes calculator_rpcgen.go.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsages())
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "check" {
		return runCheck(args[1:], stdout, stderr)
	}
	if len(args) > 0 && (args[0] == "breaking" || args[0] == "contract") {
		return runBreaking(args[0], args[1:], stdout, stderr)
	}
	var o cmdline.Options
	fs := newFlagSet(&o, stderr)
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	switch {
	case o.Help:
		usage(fs, stdout)
		return exitOK
	case o.Version:
		fmt.Fprintf(stdout, "rpcgen %s\n", version())
		return exitOK
	case fs.NArg() == 0 && o.Check:
		return checkWithoutInterfaces(fs, &o, stdout, stderr)
	case fs.NArg() == 0:
		fmt.Fprint(stderr, "rpcgen: name at least one interface\nRun 'rpcgen --help' for usage.\n")
		return exitUsage
	}
	cache := generator.Cache{Dir: cacheDir(o.NoCache), Map: true} // the outputs are written and the process exits
	return generate(&o, fs.Args(), "", cache, stdout, stderr)
}

// parseFlags parses args into fs, reporting a usage error (or --help's
// ErrHelp) itself: done says whether the caller should return code.
func parseFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) (code int, done bool) {
	if err := rejectSingleDashLong(fs, args); err != nil {
		fmt.Fprintf(stderr, "rpcgen: %v\n", err)
		return exitUsage, true
	}
	if err := rejectUnknownLong(fs, args); err != nil {
		fmt.Fprintf(stderr, "rpcgen: %v\nRun 'rpcgen --help' for usage.\n", err)
		return exitUsage, true
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK, true
		}
		fmt.Fprintf(stderr, "rpcgen: %v\nRun 'rpcgen --help' for usage.\n", err)
		return exitUsage, true
	}
	return exitOK, false
}

// generate runs the generator for the interfaces with the options o in
// the directory wd ("" is the current one, which --dir is relative to),
// and writes the outputs that changed, or under --check compares them with
// the files and prints a diff of those that differ.
func generate(o *cmdline.Options, interfaces []string, wd string, cache generator.Cache, stdout, stderr io.Writer) int {
	cwd, _ := os.Getwd()
	dir := o.Dir
	if wd != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	files, err := cache.Generate(generator.Config{
		Strict: o.Strict,
		Warn: func(w *generator.Error) {
			fmt.Fprint(stderr, generator.ErrorList{w}.Format(cwd))
		},
		Dir:            dir,
		Interfaces:     interfaces,
		Output:         o.Out,
		BuildTags:      o.Tags,
		SchemaDir:      o.SchemaDir,
		OpenRPC:        o.OpenRPC,
		TypeScript:     o.TypeScript,
		TSRuntime:      o.TSRuntime,
		Docs:           o.Docs,
		NoDiscover:     o.NoDiscover,
		APIVersion:     o.APIVersion,
		OpenRPCVersion: o.OpenRPCVersion,
		Servers:        o.Servers,
		License:        o.License, LicenseURL: o.LicenseURL,
		Contact: o.Contact, ContactEmail: o.ContactEmail, ContactURL: o.ContactURL,
		ServerJSON: o.ServerJSON, ServerCard: o.ServerCard, Server: generator.ServerMeta(o.ServerMeta()),
	})
	if err != nil {
		var list generator.ErrorList
		if errors.As(err, &list) {
			fmt.Fprint(stderr, list.Format(cwd))
			if o.Strict && strictOnly(list) {
				fmt.Fprint(stderr, "rpcgen: --strict makes these warnings errors\n")
			}
		} else {
			fmt.Fprintf(stderr, "rpcgen: %v\n", err)
		}
		// Like stringer, keep unformattable output so the compiler shows what is wrong.
		for path, src := range files {
			if !o.Check && len(src) > 0 {
				_ = os.WriteFile(path, src, 0o644)
			}
		}
		return exitFail
	}

	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	status := exitOK
	for _, path := range paths {
		want := files[path]
		same, err := sameContent(path, want)
		if err != nil {
			fmt.Fprintf(stderr, "rpcgen: %v\n", err)
			return exitFail
		}
		if same {
			continue // leave the file and its modification time alone
		}
		if o.Check {
			have, err := os.ReadFile(path)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(stderr, "rpcgen: %v\n", err)
				return exitFail
			}
			name := displayPath(path)
			if have == nil && err != nil {
				fmt.Fprintf(stderr, "rpcgen: %s is missing; run go generate\n", name)
			} else {
				fmt.Fprintf(stderr, "rpcgen: %s is stale; run go generate\n", name)
			}
			fmt.Fprint(stdout, diff.Summarized("a/"+name, "b/"+name, string(have), string(want)))
			status = exitFail
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintf(stderr, "rpcgen: %v\n", err)
			return exitFail
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			fmt.Fprintf(stderr, "rpcgen: %v\n", err)
			return exitFail
		}
	}
	return status
}

// sameContent reports whether the file at path holds exactly want; a file
// that does not exist does not. It compares as it reads, in small pieces:
// a generated file can be megabytes, and most runs find it unchanged.
func sameContent(path string, want []byte) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || info.Size() != int64(len(want)) {
		return false, err
	}
	buf := make([]byte, 64<<10)
	for len(want) > 0 {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(want))])
		if err != nil || !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
	}
	n, _ := f.Read(buf[:1])
	return n == 0, nil
}

// cacheDir is the directory of rpcgen's caches: none with --no-cache.
func cacheDir(off bool) string {
	if off {
		return ""
	}
	return generator.DefaultCacheDir()
}

// strictOnly reports whether every problem in list is a warning.
func strictOnly(list generator.ErrorList) bool {
	for _, e := range list {
		if !strings.HasPrefix(e.Msg, "warning:") {
			return false
		}
	}
	return true
}

// displayPath shows path relative to the working directory when it lies below it.
func displayPath(path string) string {
	if cwd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}
