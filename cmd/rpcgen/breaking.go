package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rpcgen/rpcgen/generator"
)

// runBreaking is "rpcgen breaking" and "rpcgen contract": the contract
// snapshot of the interfaces, written (contract) or compared with an
// earlier one (breaking; docs/evolving.md).
func runBreaking(cmd string, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("rpcgen "+cmd, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	var against, newRef, out, dir, output string
	var tags []string
	var safe, help bool
	if cmd == "breaking" {
		fs.StringVar(&against, "against", "", "the earlier contract: a snapshot `rpcgen contract` wrote, an OpenRPC document, or git:REF for the interfaces at that revision")
		fs.StringVar(&newRef, "new", "", "compare git:REF, the interfaces at that revision, instead of the work tree's")
		fs.BoolVar(&safe, "safe", false, "list the changes that break nothing too (changed tool digests are printed always)")
	} else {
		fs.StringVarP(&output, "output", "o", "", "write the snapshot to this file instead of stdout")
	}
	fs.StringVar(&dir, "dir", "", "directory of the package holding the interfaces (default: the current one)")
	fs.StringVar(&out, "out", "", "the generated Go file's name, as given to rpcgen (it is not read)")
	fs.StringSliceVar(&tags, "tags", nil, "comma-separated build tags")
	fs.BoolVarP(&help, "help", "h", false, "show this help")
	fs.Usage = func() { breakingUsage(cmd, fs, stderr) }
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if help {
		breakingUsage(cmd, fs, stdout)
		return exitOK
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "rpcgen %s: name at least one interface\n", cmd)
		return exitUsage
	}
	cfg := generator.Config{Dir: dir, Interfaces: fs.Args(), Output: out, BuildTags: tags}
	cwd, _ := os.Getwd()
	fail := func(err error) int {
		var list generator.ErrorList
		if errors.As(err, &list) {
			fmt.Fprint(stderr, list.Format(cwd))
		} else {
			fmt.Fprintf(stderr, "rpcgen %s: %v\n", cmd, err)
		}
		return exitFail
	}
	if cmd == "contract" {
		snap, err := generator.Contract(cfg, false)
		if err != nil {
			return fail(err)
		}
		if output == "" {
			_, _ = stdout.Write(snap)
			return exitOK
		}
		if err := os.WriteFile(output, snap, 0o644); err != nil {
			return fail(err)
		}
		return exitOK
	}
	if against == "" {
		fmt.Fprint(stderr, "rpcgen breaking: give --against: a contract snapshot, an OpenRPC document or git:REF\n")
		return exitUsage
	}
	var now []byte
	var err error
	if ref, ok := strings.CutPrefix(newRef, "git:"); ok {
		now, err = contractAt(ref, cfg, true)
	} else if newRef != "" {
		return fail(fmt.Errorf("--new takes git:REF, not %q", newRef))
	} else {
		now, err = generator.Contract(cfg, true)
	}
	if err != nil {
		return fail(err)
	}
	var old []byte
	if ref, ok := strings.CutPrefix(against, "git:"); ok {
		old, err = contractAt(ref, cfg, false)
	} else {
		old, err = os.ReadFile(against)
	}
	if err != nil {
		return fail(err)
	}
	broken, err := generator.Breaking(old, now, safe, stdout)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", against, err))
	}
	if broken > 0 {
		fmt.Fprintf(stderr, "rpcgen breaking: %d breaking change(s) against %s\n", broken, against)
		return exitFail
	}
	return exitOK
}

// contractAt is the contract of the interfaces of cfg at the git revision
// ref: the repository's tree at ref, extracted with git archive into a
// temporary directory, loaded there from the same relative directory.
func contractAt(ref string, cfg generator.Config, withPos bool) ([]byte, error) {
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	top, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, fmt.Errorf("git:%s: %s is not in a git work tree: %w", ref, dir, err)
	}
	root, err := filepath.EvalSymlinks(strings.TrimSpace(string(top)))
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "rpcgen-breaking-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", ref)
	extract := exec.Command("tar", "-x", "-C", tmp)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return nil, err
	}
	extract.Stdin = pipe
	var archErr strings.Builder
	archive.Stderr = &archErr
	if err := extract.Start(); err != nil {
		return nil, fmt.Errorf("git:%s: tar: %w", ref, err)
	}
	if err := archive.Run(); err != nil {
		_ = extract.Wait()
		return nil, fmt.Errorf("git:%s: git archive: %v: %s", ref, err, strings.TrimSpace(archErr.String()))
	}
	if err := extract.Wait(); err != nil {
		return nil, fmt.Errorf("git:%s: tar: %w", ref, err)
	}
	old := cfg
	old.Dir = filepath.Join(tmp, rel)
	snap, err := generator.Contract(old, withPos)
	if err != nil {
		return nil, fmt.Errorf("git:%s: the interfaces at that revision: %w", ref, err)
	}
	return snap, nil
}

func breakingUsage(cmd string, fs *pflag.FlagSet, w io.Writer) {
	if cmd == "contract" {
		fmt.Fprint(w, `Usage: rpcgen contract [flags] Interface...

contract writes the contract snapshot of the interfaces: a JSON file
holding what their clients rely on (JSON-RPC methods, params, results and
errors; MCP tools with schemas, hints, scopes and digests; resources and
prompts; the generated Go API), for rpcgen breaking --against to compare
with later. See docs/evolving.md.

Flags:
`)
	} else {
		fmt.Fprint(w, `Usage: rpcgen breaking --against FILE|git:REF [flags] Interface...

breaking compares the interfaces as they are now with an earlier contract
(a snapshot rpcgen contract wrote, an OpenRPC document --openrpc wrote, or
git:REF, the interfaces at that git revision) and reports each change that
would break an existing client, by rule, at its position in the source. It
exits 1 when one does. A //rpcgen:breaking ignore=RULE reason="..." line
in a method's or interface's doc comment accepts that rule's changes
there. In CI:

	go tool rpcgen breaking --against git:origin/main Calculator

See docs/evolving.md for the rules.

Flags:
`)
	}
	fmt.Fprint(w, fs.FlagUsages())
}
