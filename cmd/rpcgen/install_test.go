package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/modproxy"
)

// An offlineGo runs the go command as the tests that build modules need
// it: offline, with a module proxy of the test's own that answers a
// status of its choosing (403 as many corporate proxies do, or 404 as the
// public one does) for everything under github.com/rpcgen/, rpcgen having
// no release, and serves every other module from the module cache, which
// this repository's own build has filled. The checksum database is off
// (nothing could answer for it); checkSums compares what go.sum records
// with the repository's go.sum instead.
type offlineGo struct {
	env   []string
	proxy *modproxy.Proxy
}

func newOfflineGo(t *testing.T, status int) *offlineGo {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	p := &modproxy.Proxy{
		CacheDir: filepath.Join(strings.TrimSpace(string(out)), "cache", "download"),
		Refuse:   map[string]int{"github.com/rpcgen/": status},
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	env := append(os.Environ(), "GOPROXY="+srv.URL, "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
	return &offlineGo{env: env, proxy: p}
}

// run runs a go command (or, for "sh -c", a documented command line) in dir
// and returns its combined output, failing t when it fails, with what the
// proxy could not find in the module cache.
func (g *offlineGo) run(t *testing.T, dir string, extraEnv []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(g.env, extraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("%s: %v\n%s", strings.Join(args, " "), err, out)
		if missing := g.proxy.Missing(); len(missing) > 0 {
			msg += "\nThis test runs offline, from the module cache, which lacks:\n\t" + strings.Join(missing, "\n\t") +
				"\nBuild the repository's packages first (go build ./... at its root) to download them."
		}
		t.Fatal(msg)
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
// The README's Install section must give the same commands.
func installFromCheckout(t *testing.T, g *offlineGo, dir, repo string) string {
	t.Helper()
	cmds := documentedInstall(t, repo)
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds[:2] {
		if !strings.Contains(string(readme), "\n"+c+"\n") {
			t.Errorf("README.md's Install section lacks %q, which docs/generating.md gives", c)
		}
	}
	var out string
	for _, c := range cmds {
		c = strings.ReplaceAll(c, "=../rpcgen", "="+repo)
		out = g.run(t, dir, nil, "sh", "-c", c)
	}
	checkSums(t, dir, repo)
	return out
}

// checkSums fails t when the go.sum in dir records a hash that the
// repository's go.sum records otherwise: the checksum database being off,
// the repository's hashes, verified when it was built, are the reference.
func checkSums(t *testing.T, dir, repo string) {
	t.Helper()
	known := map[string]string{}
	readSums(t, filepath.Join(repo, "go.sum"), func(key, hash string) { known[key] = hash })
	n := 0
	readSums(t, filepath.Join(dir, "go.sum"), func(key, hash string) {
		n++
		if want, ok := known[key]; ok && want != hash {
			t.Errorf("go.sum: %s %s, but the repository's go.sum has %s", key, hash, want)
		}
	})
	if n == 0 {
		t.Error("the documented commands left go.sum empty")
	}
}

func readSums(t *testing.T, path string, each func(key, hash string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 3 {
			each(fields[0]+" "+fields[1], fields[2])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestInstallFromCheckout runs the commands docs/generating.md (and the
// README) give for using rpcgen before a release, in a new module, as a
// new user would, behind a module proxy that answers 403 for modules it
// does not know, as many corporate ones do, and behind one that answers
// 404, as the public one does: the replace and the tool directive, go get
// of rpcgen's packages, go generate, and go tool rpcgen --version; then the
// package with the generated file builds and vets, and --check passes.
func TestInstallFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rpcgen in a new module")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			g := newOfflineGo(t, status)
			dir := t.TempDir()
			g.run(t, dir, nil, "go", "mod", "init", "example.com/calc")
			write(t, filepath.Join(dir, "calc.go"), strings.Replace(calcSrc, "//go:generate rpcgen Calculator", "//go:generate go tool rpcgen Calculator", 1))
			version := installFromCheckout(t, g, dir, repo)
			if want := "rpcgen v0.0.0-00010101000000-000000000000 (replaced by " + repo + ")\n"; version != want {
				t.Errorf("go tool rpcgen --version = %q, want %q", version, want)
			}
			if len(g.proxy.Refused()) == 0 {
				t.Errorf("the go command never asked the proxy about github.com/rpcgen/...: the test proves nothing about a %d", status)
			}
			if _, err := os.Stat(filepath.Join(dir, "calculator_rpcgen.go")); err != nil {
				t.Fatalf("go generate wrote nothing: %v", err)
			}
			g.run(t, dir, nil, "go", "vet", "./...")
			g.run(t, dir, nil, "go", "tool", "rpcgen", "--check", "Calculator")
		})
	}
}
