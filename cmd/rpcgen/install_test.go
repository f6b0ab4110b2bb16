package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goEnv is the environment the tests that build modules run the go command
// in. The module proxy is a file:// one holding nothing: it answers "not
// found" for github.com/rpcgen/rpcgen as the public proxy does for a module
// with no release, and every other module comes from the module cache,
// which this repository's own build has filled.
//
// The checksum database is off. A proxy that cannot serve it (as this
// file:// one cannot) makes the go command dial the database's host
// directly for every module missing from go.sum, which fails offline on a
// cold cache. The tests seed go.sum from the repository's (seedGoSum), so
// the go command still checks the cached modules against the hashes the
// repository was verified with; GOSUMDB=off only stops it from asking the
// network about anything else.
func goEnv(t *testing.T) []string {
	t.Helper()
	empty := t.TempDir()
	return append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(empty), "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOWORK=off")
}

// seedGoSum copies the repository's go.sum into the module at dir: rpcgen's
// dependencies are the repository's, so their hashes are there.
func seedGoSum(t *testing.T, dir, repo string) {
	t.Helper()
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
}

// goIn runs a go command (or, for "sh -c", a documented command line) in dir
// and returns its combined output, failing t when it fails.
func goIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// documentedInstall returns the commands docs/generating.md gives for
// installing from a checkout: the shell block after the
// install-from-checkout marker.
func documentedInstall(t *testing.T, repo string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "generating.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "<!-- install-from-checkout")
	if !ok {
		t.Fatal("docs/generating.md has no install-from-checkout block")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the install-from-checkout block is not closed")
	}
	var cmds []string
	for line := range strings.SplitSeq(strings.TrimSpace(block), "\n") {
		cmds = append(cmds, strings.TrimSpace(line))
	}
	return cmds
}

// installFromCheckout makes dir a module that uses rpcgen as its docs say
// for a checkout: it runs the documented commands, with the checkout at
// repo, and returns the output of the last (go tool rpcgen --version).
func installFromCheckout(t *testing.T, dir, repo string, env []string) string {
	t.Helper()
	seedGoSum(t, dir, repo)
	var out string
	for _, c := range documentedInstall(t, repo) {
		c = strings.ReplaceAll(c, "=../rpcgen", "="+repo)
		out = goIn(t, dir, env, "sh", "-c", c)
	}
	return out
}

// TestInstallFromCheckout runs the commands docs/generating.md gives for
// using rpcgen before a release, in a new module, as a new user would: the
// replace, go get -tool, go generate, and go tool rpcgen --version; then
// the package with the generated file builds and vets, and --check passes.
func TestInstallFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rpcgen in a new module")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	env := goEnv(t)
	dir := t.TempDir()
	goIn(t, dir, env, "go", "mod", "init", "example.com/calc")
	write(t, filepath.Join(dir, "calc.go"), strings.Replace(calcSrc, "//go:generate rpcgen Calculator", "//go:generate go tool rpcgen Calculator", 1))
	version := installFromCheckout(t, dir, repo, env)
	if want := "rpcgen v0.0.0-00010101000000-000000000000 (replaced by " + repo + ")\n"; version != want {
		t.Errorf("go tool rpcgen --version = %q, want %q", version, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "calculator_rpcgen.go")); err != nil {
		t.Fatalf("go generate wrote nothing: %v", err)
	}
	goIn(t, dir, env, "go", "vet", "./...")
	goIn(t, dir, env, "go", "tool", "rpcgen", "--check", "Calculator")
}
