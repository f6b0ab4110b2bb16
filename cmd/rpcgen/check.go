package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rpcgen/rpcgen/generator"
	"github.com/rpcgen/rpcgen/internal/cmdline"
)

// runCheck is "rpcgen check [--tags a,b] [--no-cache] [packages]": it
// finds the //go:generate lines that run rpcgen in the packages, runs each
// with its own flags in its own directory, writing nothing, and reports
// the outputs that are stale or missing, with a diff.
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("rpcgen check", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	var tags []string
	var noCache, help bool
	fs.StringSliceVar(&tags, "tags", nil, "comma-separated build tags for choosing the packages' files, as go generate -tags (\"generate\" is always set)")
	fs.BoolVar(&noCache, "no-cache", false, "generate afresh instead of reusing earlier runs' work")
	fs.BoolVarP(&help, "help", "h", false, "show this help")
	fs.Usage = func() { checkUsage(fs, stderr) }
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if help {
		checkUsage(fs, stdout)
		return exitOK
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	return check(patterns, tags, noCache, stdout, stderr)
}

func checkUsage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `Usage: rpcgen check [flags] [packages]

check finds the //go:generate lines that run rpcgen in the packages (the
one in the current directory by default; ./... for a whole module), runs
each one with its own flags in its own directory, writing nothing, and
prints a diff of every output that is stale or missing. It exits 1 when
there is one. In CI:

	go tool rpcgen check ./...

Flags:
`)
	fmt.Fprint(w, fs.FlagUsages())
}

// checkWithoutInterfaces is --check with no interface named: check of the
// package in the current directory. The generation flags belong on the
// //go:generate lines then, so only --tags and --no-cache may come along.
func checkWithoutInterfaces(fs *pflag.FlagSet, o *cmdline.Options, stdout, stderr io.Writer) int {
	var misplaced []string
	fs.Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "check", "tags", "no-cache":
		default:
			misplaced = append(misplaced, "--"+f.Name)
		}
	})
	if len(misplaced) > 0 {
		fmt.Fprintf(stderr, "rpcgen: --check without interfaces checks the package's //go:generate lines, which carry their own flags: %s belongs on those lines, or name the interfaces\n", strings.Join(misplaced, ", "))
		return exitUsage
	}
	return check([]string{"."}, o.Tags, o.NoCache, stdout, stderr)
}

// check checks every //go:generate line running rpcgen in the packages
// that patterns match.
func check(patterns, tags []string, noCache bool, stdout, stderr io.Writer) int {
	pkgs, env, err := listPackages(patterns, tags, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "rpcgen: %v\n", err)
		return exitFail
	}
	status := exitOK
	var lines []generateLine
	for _, p := range pkgs {
		files := p.files()
		if p.Error != nil && len(files) == 0 {
			fmt.Fprintf(stderr, "rpcgen: %s\n", strings.TrimSpace(p.Error.Err))
			status = exitFail
			continue
		}
		for _, f := range files {
			path := filepath.Join(p.Dir, f)
			src, err := os.ReadFile(path)
			if err != nil {
				fmt.Fprintf(stderr, "rpcgen: %v\n", err)
				status = exitFail
				continue
			}
			env.pkg = packageName(path, src)
			found, err := generateLines(displayPath(path), src, env)
			if err != nil {
				fmt.Fprintln(stderr, err)
				status = exitFail
			}
			for i := range found {
				found[i].file = path
			}
			lines = append(lines, found...)
		}
	}
	if len(lines) == 0 {
		fmt.Fprintf(stderr, "rpcgen: no //go:generate line runs rpcgen in %s\n", strings.Join(patterns, " "))
		return status
	}

	cache := generator.Cache{Dir: cacheDir(noCache)}
	failed := 0
	for _, l := range lines {
		var out, msgs bytes.Buffer
		if checkLine(l, cache, &out, &msgs) != exitOK {
			failed++
		} else if msgs.Len() == 0 {
			continue
		}
		fmt.Fprintf(stderr, "%s:%d: //go:generate %s\n", displayPath(l.file), l.line, l.text)
		_, _ = stderr.Write(msgs.Bytes())
		_, _ = stdout.Write(out.Bytes())
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "rpcgen: %d of %d //go:generate lines running rpcgen do not match what is on disk; run go generate\n", failed, len(lines))
		return exitFail
	}
	return status
}

// checkLine runs rpcgen with l's arguments and --check in the directory of
// l's file.
func checkLine(l generateLine, cache generator.Cache, stdout, stderr io.Writer) int {
	var o cmdline.Options
	fs := newFlagSet(&o, stderr)
	if code, done := parseFlags(fs, l.args, stderr); done {
		return max(code, exitFail)
	}
	switch {
	case o.Help || o.Version:
		return exitOK // prints, generates nothing
	case fs.NArg() == 0:
		fmt.Fprint(stderr, "rpcgen: the line names no interface\n")
		return exitFail
	}
	o.Check = true
	return generate(&o, fs.Args(), filepath.Dir(l.file), cache, stdout, stderr)
}

// A listedPackage is what check needs of go list's answer.
type listedPackage struct {
	Dir                                          string
	GoFiles, CgoFiles, TestGoFiles, XTestGoFiles []string
	Module                                       *struct{ Main bool }
	Error                                        *struct{ Err string }
}

// files are the package's files that go generate reads, in its order.
func (p *listedPackage) files() []string {
	var all []string
	for _, fs := range [][]string{p.GoFiles, p.CgoFiles, p.TestGoFiles, p.XTestGoFiles} {
		all = append(all, fs...)
	}
	return all
}

// listPackages asks go list for the packages that patterns match, with the
// files go generate would read (it sets the build tag "generate"), and
// for the values go generate gives $GOOS, $GOARCH and $GOROOT. Like go
// generate, it leaves out packages of dependency modules.
func listPackages(patterns, tags []string, stderr io.Writer) ([]listedPackage, directiveEnv, error) {
	var env directiveEnv
	out, err := exec.Command("go", "env", "GOOS", "GOARCH", "GOROOT").Output()
	if err != nil {
		return nil, env, fmt.Errorf("go env: %w", commandError(err))
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != 3 {
		return nil, env, fmt.Errorf("go env GOOS GOARCH GOROOT said %q", out)
	}
	env.goos, env.goarch, env.goroot = vals[0], vals[1], vals[2]

	args := []string{"list", "-e", "-json=Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Module,Error", "-tags=" + strings.Join(append([]string{"generate"}, tags...), ",")}
	cmd := exec.Command("go", append(append(args, "--"), patterns...)...)
	cmd.Stderr = stderr // "matched no packages" and the like
	out, err = cmd.Output()
	if err != nil {
		return nil, env, fmt.Errorf("go list %s: %w", strings.Join(patterns, " "), err)
	}
	var pkgs []listedPackage
	skipped := false
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, env, fmt.Errorf("reading go list's answer: %w", err)
		}
		if p.Module != nil && !p.Module.Main {
			skipped = true
			continue
		}
		pkgs = append(pkgs, p)
	}
	if skipped {
		fmt.Fprint(stderr, "rpcgen: not checking packages of dependency modules\n")
	}
	return pkgs, env, nil
}

// commandError adds a failed command's stderr to its error.
func commandError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return err
}

// packageName is the name in the package clause of the file src, which go
// generate gives as $GOPACKAGE ("" if the clause does not parse).
func packageName(path string, src []byte) string {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.PackageClauseOnly)
	if err != nil {
		return ""
	}
	return f.Name.Name
}
