package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestUndocumentedWarning: a method without a doc comment is a tool
// without a description; rpcgen warns on stderr (again when the output
// cache answers) and still writes the file, and --strict makes the warning
// an error that writes nothing.
func TestUndocumentedWarning(t *testing.T) {
	dir := newPackage(t, `package calc

import "context"

// Calculator adds and subtracts.
type Calculator interface {
	// Add returns a + b.
	Add(ctx context.Context, a, b int) (int, error)
	Sub(ctx context.Context, a, b int) (int, error)
}
`)
	const want = "calc.go:9:2: warning: method Sub has no doc comment, so its MCP tool sub has no description, which a model needs to choose it; write one, or set it with //rpcgen:method Sub description=\"...\" on an interface that embeds this one\n"
	for run := range 2 { // the second run is answered from the output cache
		code, _, stderr := runIn(t, dir, "Calculator")
		if code != exitOK || stderr != want {
			t.Fatalf("run %d: exit %d, stderr:\n%s\nwant:\n%s", run, code, stderr, want)
		}
	}
	out := filepath.Join(dir, "calculator_rpcgen.go")
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runIn(t, dir, "--strict", "Calculator")
	if code != exitFail || stderr != want+"rpcgen: --strict makes these warnings errors\n" {
		t.Fatalf("--strict: exit %d, stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--strict wrote the output despite the warning")
	}
}

func TestDescribeBuild(t *testing.T) {
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a checkout", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.time", Value: "2026-01-02T15:04:05Z"}, {Key: "vcs.modified", Value: "true"}}},
			"(devel) (revision 0123456789abcdef0123456789abcdef01234567 of 2026-01-02T15:04:05Z, with uncommitted changes)"},
		{"a release, as a tool", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: modulePath, Version: "v0.3.1"}}},
			"v0.3.1"},
		{"a commit before a release", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: modulePath, Version: "v0.3.2-0.20260102150405-abcdef123456"}}},
			"v0.3.2-0.20260102150405-abcdef123456 (revision abcdef123456)"},
		{"a fork's checkout", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: modulePath, Version: "v0.0.0-00010101000000-000000000000", Replace: &debug.Module{Path: "../rpcgen"}}}},
			"v0.0.0-00010101000000-000000000000 (replaced by ../rpcgen)"},
		{"a fork's module", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: []*debug.Module{{Path: modulePath, Version: "v0.3.1", Replace: &debug.Module{Path: "github.com/me/rpcgen", Version: "v0.0.0-20260102150405-0a1b2c3d4e5f"}}}},
			"v0.3.1 (revision 0a1b2c3d4e5f; replaced by github.com/me/rpcgen v0.0.0-20260102150405-0a1b2c3d4e5f)"},
		{"not rpcgen", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}}, "(devel)"},
	}
	for _, c := range cases {
		if got := describeBuild(&c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if v := version(); !strings.Contains(v, "(devel)") && !strings.HasPrefix(v, "v") {
		t.Errorf("version() = %q", v)
	}
}
