//go:build releasesim

// The release simulation needs, in the module cache, the module graphs of
// every released module (the ext modules' third-party dependencies
// included), so it is not part of go test ./... at the root; .ci/run
// fills the cache (go mod download all in the root and in each ext module),
// then runs it:
//
//	go test -tags releasesim -run TestReleaseSimulation ./internal/release

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"

	"github.com/rpcgen/rpcgen/internal/modproxy"
)

// TestReleaseSimulation releases the repository as it is (its committed
// and new files, as a commit would hold them) at the next minor version
// and fetches it as a user would. On a copy made a git repository of its
// own, it runs prepare, commits, runs tag, and builds each released
// module's zip from its tag as the module proxy builds it from a tag
// (golang.org/x/mod/zip from git archive). A local module proxy serves
// those zips and, for every other module, the module cache's download
// directory, answering 404 for any other path under github.com/rpcgen/.
// Then in a new module, with a module cache of its own, no replace and no
// network: go get -tool of rpcgen's command and go get of each ext module
// at that version, go generate, go vet, a build of every ext module's
// packages, and a run of the generated client against the generated
// dispatcher.
func TestReleaseSimulation(t *testing.T) {
	isolateGit(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := copyCheckout(t, repo)
	gitIn(t, work, "init", "-q")
	gitIn(t, work, "add", "-A")
	gitIn(t, work, "commit", "-q", "-m", "the checkout")

	current, err := readVersion(work)
	if err != nil {
		t.Fatal(err)
	}
	next := fmt.Sprintf("%s.%d.0", semver.Major(current), minor(t, current)+1)
	changelog := readFile(t, work, changelogFile)
	changelog = strings.Replace(changelog, "## [Unreleased]\n", "## [Unreleased]\n\n### Added\n\n- The release simulation's entry.\n", 1)
	writeTree(t, work, map[string]string{changelogFile: changelog})
	if code, stdout, stderr := runRelease("prepare", "-C", work, "-date", "2026-12-03", next); code != 0 {
		t.Fatalf("prepare %s: exit %d\n%s%s", next, code, stdout, stderr)
	}
	gitIn(t, work, "commit", "-q", "-a", "-m", "release "+next)
	if code, stdout, stderr := runRelease("tag", "-C", work, next); code != 0 {
		t.Fatalf("tag %s: exit %d\n%s%s", next, code, stdout, stderr)
	}

	mods, err := findModules(work)
	if err != nil {
		t.Fatal(err)
	}
	order, err := releaseOrder(mods)
	if err != nil {
		t.Fatal(err)
	}
	released := map[string]bool{}
	for _, m := range order {
		released[m.Dir] = true
	}
	for _, dir := range []string{"", "ext/oauth", "ext/otel", "ext/redis", "ext/verify", "ext/websocket"} {
		if !released[dir] {
			t.Errorf("the module in %q is not released", dirName(dir))
		}
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	proxy := &modproxy.Proxy{
		CacheDir: filepath.Join(strings.TrimSpace(string(cache)), "cache", "download"),
		Refuse:   map[string]int{"github.com/rpcgen/": 404},
	}
	for _, m := range order {
		proxy.Add(m.Path, next, moduleAtTag(t, work, m, next))
	}
	srv := httptest.NewServer(proxy)
	defer srv.Close()

	user := t.TempDir()
	g := &simulatedUser{t: t, dir: user, proxy: proxy, env: append(os.Environ(),
		"GOPROXY="+srv.URL, "GOSUMDB=off", "GOPRIVATE=", "GONOPROXY=", "GONOSUMDB=", "GOWORK=off", "GOTOOLCHAIN=local",
		"GOMODCACHE="+t.TempDir(),
		// A module cache of its own (the released modules must not reach
		// the user's), removable at the end. -trimpath lets the builds of
		// a later run, whose module cache is elsewhere, reuse this one's
		// work; go tool takes no build flags, so rpcgen itself is built
		// afresh each run.
		"GOFLAGS=-modcacherw -trimpath")}
	g.run("go", "mod", "init", "example.com/user")
	g.run("go", "get", "-tool", rootPath+"/cmd/rpcgen@"+next)
	var imports []string
	for _, m := range order[1:] {
		g.run("go", "get", m.Path+"@"+next)
		imports = append(imports, "\t_ "+fmt.Sprintf("%q", m.Path))
	}
	writeTree(t, user, map[string]string{
		"calc/calc.go": `// Package calc adds.
package calc

import "context"

//go:generate go tool rpcgen Calculator

// Calculator adds.
type Calculator interface {
	// Add returns a + b.
	Add(ctx context.Context, a, b int) (int, error)
}
`,
		"main.go": `package main

import (
	"context"
	"fmt"
	"log"

	"example.com/user/calc"
	"github.com/rpcgen/rpcgen/runtime"

` + strings.Join(imports, "\n") + `
)

type adder struct{}

func (adder) Add(_ context.Context, a, b int) (int, error) { return a + b, nil }

func main() {
	a, b := runtime.Pipe()
	server := runtime.NewConn(b, runtime.Options{Handler: calc.NewCalculatorHandler(adder{})})
	defer server.Close()
	conn := runtime.NewConn(a, runtime.Options{})
	defer conn.Close()
	sum, err := calc.NewCalculatorClient(conn).Add(context.Background(), 2, 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Add(2, 3) = %d, runtime %s\n", sum, runtime.Version)
}
`,
	})
	g.run("go", "generate", "./...")
	g.run("go", "vet", "./...")
	for _, m := range order[1:] {
		g.run("go", "build", m.Path+"/...")
	}
	if out, want := g.run("go", "run", "."), "Add(2, 3) = 5, runtime "+next+"\n"; out != want {
		t.Errorf("go run .: %q, want %q", out, want)
	}
	if out, want := g.run("go", "tool", "rpcgen", "--version"), "rpcgen "+next+"\n"; out != want {
		t.Errorf("go tool rpcgen --version: %q, want %q", out, want)
	}
	listed := g.run("go", "list", "-m", "-f", "{{.Path}} {{.Version}}{{with .Replace}} => {{.Path}}{{end}}", "all")
	for _, m := range order {
		if !strings.Contains(listed, "\n"+m.Path+" "+next+"\n") {
			t.Errorf("go list -m all lacks %s %s:\n%s", m.Path, next, listed)
		}
	}
	if strings.Contains(listed, "=>") || strings.Contains(readFile(t, user, "go.mod"), "replace") {
		t.Errorf("the user's module has a replace:\n%s", listed)
	}
}

// simulatedUser runs go commands in the user's module.
type simulatedUser struct {
	t     *testing.T
	dir   string
	env   []string
	proxy *modproxy.Proxy
}

// run runs a command in the user's module and returns its standard output,
// failing the test, with what the module cache lacks, when it fails.
func (u *simulatedUser) run(args ...string) string {
	u.t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = u.dir
	cmd.Env = u.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	u.t.Logf("%s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		msg := fmt.Sprintf("%s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		if missing := u.proxy.Missing(); len(missing) > 0 {
			msg += "\nThis test runs offline: the module proxy serves the module cache, which lacks:\n\t" +
				strings.Join(missing, "\n\t") +
				"\nFill it first with go mod download all in the root and in each ext module, as .ci/run does before this test."
		}
		u.t.Fatal(msg)
	}
	return stdout.String()
}

// moduleAtTag is module m at version as a module proxy serves it: its zip
// made from the tag, as go mod download makes it, its go.mod at the tag,
// and the tagged commit's time.
func moduleAtTag(t *testing.T, repo string, m *repoModule, version string) modproxy.Module {
	t.Helper()
	tag := m.Tag(version)
	var zipped bytes.Buffer
	if err := zip.CreateFromVCS(&zipped, module.Version{Path: m.Path, Version: version}, repo, tag, m.Dir); err != nil {
		t.Fatalf("zip of %s at %s: %v", m.Path, tag, err)
	}
	mod := gitIn(t, repo, "show", tag+":"+path.Join(m.Dir, "go.mod"))
	when, err := time.Parse(time.RFC3339, strings.TrimSpace(gitIn(t, repo, "log", "-1", "--format=%cI", tag)))
	if err != nil {
		t.Fatal(err)
	}
	return modproxy.Module{Mod: []byte(mod), Zip: zipped.Bytes(), Time: when}
}

// copyCheckout copies the files of the repository at repo that a commit
// would hold (tracked ones as they are in the working tree, and new ones
// git does not ignore) into a new directory, and returns it.
func copyCheckout(t *testing.T, repo string) string {
	t.Helper()
	list := gitIn(t, repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	dst := t.TempDir()
	for name := range strings.SplitSeq(strings.TrimRight(list, "\x00"), "\x00") {
		src := filepath.Join(repo, filepath.FromSlash(name))
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue
		}
		to := filepath.Join(dst, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(src, to, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// minor is the minor number of a version vX.Y.Z.
func minor(t *testing.T, v string) int {
	t.Helper()
	var major, min, patch int
	if _, err := fmt.Sscanf(semver.Canonical(v), "v%d.%d.%d", &major, &min, &patch); err != nil {
		t.Fatalf("version %q: %v", v, err)
	}
	return min
}
