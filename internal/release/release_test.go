package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryFollowsVersion: every module of this repository requires
// the others at runtime.Version, the version they are released with
// (never a version no release will have, such as the placeholder of a
// replaced module); each released module lives where its path says; no
// version guard is declared for a later release; and the root is tagged
// first.
func TestRepositoryFollowsVersion(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mods, err := findModules(repo)
	if err != nil {
		t.Fatal(err)
	}
	version, err := readVersion(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ownRequirements(mods, version) {
		t.Errorf("%s, not runtime.Version %s", p, version)
	}
	for _, p := range checkPaths(mods) {
		t.Error(p)
	}
	beyond, err := guardsBeyond(repo, version)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range beyond {
		t.Error(p)
	}
	order, err := releaseOrder(mods)
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, m := range order {
		tags = append(tags, m.Tag(version))
	}
	if len(order) < 6 || order[0].Path != rootPath || !strings.Contains(strings.Join(tags, " "), "ext/otel/"+version) {
		t.Errorf("tag order %q: want the root first, then the ext modules", tags)
	}
}

// fixture is a small repository laid out as this one: the root, two ext
// modules (b requires a), and an example that follows.
var fixture = map[string]string{
	"go.mod":                     "module github.com/rpcgen/rpcgen\n\ngo 1.26.0\n",
	"runtime/version.go":         "package runtime\n\n// Version is the release.\nconst Version = \"v0.1.0\"\n",
	"runtime/rpcimpl/version.go": "package rpcimpl\n\n// IsAtLeastVersion0_1_0 guards.\nconst IsAtLeastVersion0_1_0 = true\n",
	"CHANGELOG.md":               firstChangelog,
	"ext/b/go.mod": `module github.com/rpcgen/rpcgen/ext/b

go 1.26.0

require (
	github.com/rpcgen/rpcgen v0.1.0
	github.com/rpcgen/rpcgen/ext/a v0.1.0
)

replace github.com/rpcgen/rpcgen => ../..

replace github.com/rpcgen/rpcgen/ext/a => ../a
`,
	"ext/a/go.mod":        "module github.com/rpcgen/rpcgen/ext/a\n\ngo 1.26.0\n\nrequire github.com/rpcgen/rpcgen v0.1.0 // the root\n\nreplace github.com/rpcgen/rpcgen => ../..\n",
	"examples/x/go.mod":   "module github.com/rpcgen/rpcgen/examples/x\n\ngo 1.26.0\n\nrequire github.com/rpcgen/rpcgen/ext/b v0.1.0\n\nreplace github.com/rpcgen/rpcgen/ext/b => ../../ext/b\n",
	"testdata/m/go.mod":   "module example.com/ignored\n",
	"examples/x/x.go":     "package x\n",
	"ext/a/testdata/x.go": "package x\n\nconst IsAtLeastVersion9_9_9 = true\n",
}

// isolateGit keeps the user's git configuration out of the test and gives
// git an identity for its commits and tags.
func isolateGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("the release tests need git: %v", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "Release Test")
	}
	for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "release@example.com")
	}
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func runRelease(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestPrepareAndTag: prepare sets the version, the requirements and the
// changelog and leaves the replaces; tag refuses an uncommitted checkout,
// then tags the root and the ext modules in dependency order and pushes
// them in that order; a second tag is refused.
func TestPrepareAndTag(t *testing.T) {
	isolateGit(t)
	repo := t.TempDir()
	writeTree(t, repo, fixture)
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "base")

	code, stdout, stderr := runRelease("plan", "-C", repo)
	if code != 0 || !strings.Contains(stdout, "v0.1.0        github.com/rpcgen/rpcgen\n  ext/a/v0.1.0  github.com/rpcgen/rpcgen/ext/a\n  ext/b/v0.1.0  github.com/rpcgen/rpcgen/ext/b\n") ||
		!strings.Contains(stdout, "examples/x  github.com/rpcgen/rpcgen/examples/x") || strings.Contains(stdout, "ignored") {
		t.Fatalf("plan: exit %d\n%s%s", code, stdout, stderr)
	}

	if code, _, stderr := runRelease("prepare", "-C", repo, "-date", "2026-12-03", "v0.2.0"); code != 0 {
		t.Fatalf("prepare: exit %d: %s", code, stderr)
	}
	if got := readFile(t, repo, "runtime/version.go"); !strings.Contains(got, "\nconst Version = \"v0.2.0\"\n") {
		t.Errorf("runtime/version.go:\n%s", got)
	}
	if got := readFile(t, repo, "ext/b/go.mod"); got != strings.ReplaceAll(fixture["ext/b/go.mod"], "v0.1.0", "v0.2.0") {
		t.Errorf("ext/b/go.mod:\n%s", got)
	}
	if got := readFile(t, repo, "ext/a/go.mod"); !strings.Contains(got, "require github.com/rpcgen/rpcgen v0.2.0 // the root\n") || !strings.Contains(got, "replace github.com/rpcgen/rpcgen => ../..") {
		t.Errorf("ext/a/go.mod:\n%s", got)
	}
	if got := readFile(t, repo, "examples/x/go.mod"); !strings.Contains(got, "require github.com/rpcgen/rpcgen/ext/b v0.2.0\n") {
		t.Errorf("examples/x/go.mod:\n%s", got)
	}
	if got := readFile(t, repo, "CHANGELOG.md"); !strings.Contains(got, "## [Unreleased]\n\n## [0.2.0] - 2026-12-03\n\n### Added\n") {
		t.Errorf("CHANGELOG.md:\n%s", got)
	}
	if got := readFile(t, repo, "testdata/m/go.mod"); got != fixture["testdata/m/go.mod"] {
		t.Errorf("a go.mod under testdata changed: %s", got)
	}

	if code, _, stderr := runRelease("tag", "-C", repo, "v0.2.0"); code != 1 || !strings.Contains(stderr, "changes a tag would not hold") || !strings.Contains(stderr, "CHANGELOG.md") {
		t.Fatalf("tag before the commit: exit %d: %s", code, stderr)
	}
	gitIn(t, repo, "commit", "-q", "-a", "-m", "release v0.2.0")
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitIn(t, repo, "init", "-q", "--bare", remote)
	code, stdout, stderr = runRelease("tag", "-C", repo, "-push", remote, "v0.2.0")
	want := "tagged v0.2.0\ntagged ext/a/v0.2.0\ntagged ext/b/v0.2.0\npushed v0.2.0 to " + remote + "\npushed ext/a/v0.2.0 to " + remote + "\npushed ext/b/v0.2.0 to " + remote + "\n"
	if code != 0 || stdout != want {
		t.Fatalf("tag: exit %d\n%s%s\nwant:\n%s", code, stdout, stderr, want)
	}
	head := strings.TrimSpace(gitIn(t, repo, "rev-parse", "HEAD"))
	for _, tag := range []string{"v0.2.0", "ext/a/v0.2.0", "ext/b/v0.2.0"} {
		if got := strings.TrimSpace(gitIn(t, remote, "rev-parse", tag+"^{commit}")); got != head {
			t.Errorf("remote tag %s is %s, want the release commit %s", tag, got, head)
		}
		if kind := strings.TrimSpace(gitIn(t, repo, "cat-file", "-t", tag)); kind != "tag" {
			t.Errorf("%s is a %s, not an annotated tag", tag, kind)
		}
	}
	if code, _, stderr := runRelease("tag", "-C", repo, "v0.2.0"); code != 1 || !strings.Contains(stderr, "tag v0.2.0 exists already") {
		t.Errorf("tag again: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runRelease("prepare", "-C", repo, "v0.2.0"); code != 1 || !strings.Contains(stderr, "v0.2.0 is tagged already") {
		t.Errorf("prepare a tagged version: exit %d: %s", code, stderr)
	}
}

// TestPrepareRefuses: what would make a broken release stops prepare
// before it writes anything, and tag checks the commit it tags.
func TestPrepareRefuses(t *testing.T) {
	isolateGit(t)
	for _, tt := range []struct {
		name    string
		change  map[string]string
		args    []string
		code    int
		wantErr string
	}{
		{"an older version", nil, []string{"prepare", "v0.0.9"}, 1, "v0.0.9 is older than runtime.Version, v0.1.0"},
		{"not a version", nil, []string{"prepare", "0.2"}, 2, `"0.2" is not a version`},
		{"a new major version", nil, []string{"prepare", "v2.0.0"}, 1, "v2.0.0 needs a /v2 module path"},
		{"a guard for a later release", map[string]string{"runtime/rpcimpl/later.go": "package rpcimpl\n\nconst IsAtLeastVersion0_3_0 = true\n"},
			[]string{"prepare", "v0.2.0"}, 1, "runtime/rpcimpl/later.go declares IsAtLeastVersion0_3_0, for v0.3.0, later than v0.2.0"},
		{"a released module out of place", map[string]string{"ext/c/go.mod": "module example.com/c\n"},
			[]string{"prepare", "v0.2.0"}, 1, "ext/c/go.mod: module example.com/c, but a module released from ext/c must be github.com/rpcgen/rpcgen/ext/c"},
		{"modules in a cycle", map[string]string{"ext/a/go.mod": "module github.com/rpcgen/rpcgen/ext/a\n\nrequire github.com/rpcgen/rpcgen/ext/b v0.1.0\n"},
			[]string{"prepare", "v0.2.0"}, 1, "released modules require each other in a cycle"},
		{"nothing to release", map[string]string{"CHANGELOG.md": "## [Unreleased]\n\n[Unreleased]: x\n"},
			[]string{"prepare", "v0.2.0"}, 1, "the Unreleased section has no entry"},
		{"tag without prepare", nil, []string{"tag", "v0.2.0"}, 1, "runtime/version.go: Version is v0.1.0, not v0.2.0 (run prepare v0.2.0, and commit)"},
		{"tag without the changelog", nil, []string{"tag", "v0.1.0"}, 1, "CHANGELOG.md has no section for 0.1.0"},
		{"tag a stray requirement", map[string]string{"examples/x/go.mod": "module github.com/rpcgen/rpcgen/examples/x\n\nrequire github.com/rpcgen/rpcgen v0.0.0-00010101000000-000000000000\n"},
			[]string{"tag", "v0.1.0"}, 1, "examples/x/go.mod requires github.com/rpcgen/rpcgen v0.0.0-00010101000000-000000000000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			writeTree(t, repo, fixture)
			writeTree(t, repo, tt.change)
			gitIn(t, repo, "init", "-q")
			gitIn(t, repo, "add", "-A")
			gitIn(t, repo, "commit", "-q", "-m", "base")
			args := append([]string{tt.args[0], "-C", repo}, tt.args[1:]...)
			code, _, stderr := runRelease(args...)
			if code != tt.code || !strings.Contains(stderr, tt.wantErr) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tt.code, tt.wantErr)
			}
			if st := gitIn(t, repo, "status", "--porcelain"); st != "" {
				t.Errorf("a refused command changed the checkout:\n%s", st)
			}
			if tags := gitIn(t, repo, "tag"); tags != "" {
				t.Errorf("a refused command tagged: %s", tags)
			}
		})
	}
}
