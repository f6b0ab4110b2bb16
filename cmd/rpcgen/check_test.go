package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkModule is a module of three packages for rpcgen check: calc with
// two //go:generate lines in two files (one with flags, spelled go tool,
// one through a -command alias), tools with a line spelled as a program
// on PATH, and plain with none that runs rpcgen.
var checkModule = map[string]string{
	"go.mod": "module example.com/calc\n\ngo 1.26.0\n",
	"calc/calc.go": `package calc

import "context"

//go:generate go tool rpcgen --openrpc calc.openrpc.json Calculator

// Calculator adds.
type Calculator interface {
	// Add returns a + b.
	Add(ctx context.Context, a, b int) (int, error)
}
`,
	"calc/stats.go": `package calc

import "context"

//go:generate -command gen go run github.com/rpcgen/rpcgen/cmd/rpcgen@v0.1.0
//go:generate gen --out ${GOPACKAGE}_stats_rpcgen.go Stats

// Stats counts.
type Stats interface {
	// Count returns how many numbers there are.
	Count(ctx context.Context, xs []int) (int, error)
}
`,
	"tools/tools.go": `package tools

import "context"

//go:generate rpcgen Echo

// Echo echoes.
type Echo interface {
	// Echo returns s.
	Echo(ctx context.Context, s string) (string, error)
}
`,
	"plain/plain.go": `package plain

//go:generate stringer -type Kind

// Kind is a kind.
type Kind int
`,
}

// generateModule writes what each line of checkModule generates, as go
// generate would.
func generateModule(t *testing.T, root string) {
	t.Helper()
	for _, run := range []struct {
		dir  string
		args []string
	}{
		{"calc", []string{"--openrpc", "calc.openrpc.json", "Calculator"}},
		{"calc", []string{"--out", "calc_stats_rpcgen.go", "Stats"}},
		{"tools", []string{"Echo"}},
	} {
		if code, _, stderr := runIn(t, filepath.Join(root, run.dir), run.args...); code != exitOK {
			t.Fatalf("rpcgen %s in %s: exit %d: %s", strings.Join(run.args, " "), run.dir, code, stderr)
		}
	}
}

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(root, name), src)
	}
	return root
}

// TestCheckCommand: rpcgen check ./... finds every line that runs rpcgen,
// reports missing outputs, passes once they are generated, and after an
// interface changes reports exactly the stale outputs of its line, with a
// diff in which the OpenRPC constant is summarized.
func TestCheckCommand(t *testing.T) {
	root := writeModule(t, checkModule)

	// Nothing generated yet: every output of the three lines is missing.
	code, stdout, stderr := runIn(t, root, "check", "./...")
	if code != exitFail {
		t.Fatalf("missing outputs: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"calc/calc.go:5: //go:generate go tool rpcgen --openrpc calc.openrpc.json Calculator\n" +
			"rpcgen: calc/calc.openrpc.json is missing; run go generate\n" +
			"rpcgen: calc/calculator_rpcgen.go is missing; run go generate\n",
		"calc/stats.go:6: //go:generate gen --out ${GOPACKAGE}_stats_rpcgen.go Stats\n" +
			"rpcgen: calc/calc_stats_rpcgen.go is missing; run go generate\n",
		"tools/tools.go:5: //go:generate rpcgen Echo\nrpcgen: tools/echo_rpcgen.go is missing; run go generate\n",
		"rpcgen: 3 of 3 //go:generate lines running rpcgen do not match what is on disk; run go generate\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"+++ b/calc/calculator_rpcgen.go", "+++ b/calc/calc.openrpc.json", "+++ b/calc/calc_stats_rpcgen.go", "+++ b/tools/echo_rpcgen.go"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no diff %s:\n%s", want, stdout)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(root, "*", "*_rpcgen.go")); len(matches) > 0 {
		t.Fatalf("check wrote %v", matches)
	}

	// Generated: up to date, and silent.
	generateModule(t, root)
	if code, stdout, stderr := runIn(t, root, "check", "./..."); code != exitOK || stdout != "" || stderr != "" {
		t.Fatalf("up to date: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// A changed doc comment: the outputs of that line only are stale, and
	// the diff shows the change inside the long OpenRPC constant without
	// printing it whole.
	calc := filepath.Join(root, "calc", "calc.go")
	write(t, calc, strings.Replace(checkModule["calc/calc.go"], "// Add returns a + b.", "// Add returns the sum of a and b.", 1))
	code, stdout, stderr = runIn(t, root, "check", "./...")
	wantErr := "calc/calc.go:5: //go:generate go tool rpcgen --openrpc calc.openrpc.json Calculator\n" +
		"rpcgen: calc/calc.openrpc.json is stale; run go generate\n" +
		"rpcgen: calc/calculator_rpcgen.go is stale; run go generate\n" +
		"rpcgen: 1 of 3 //go:generate lines running rpcgen do not match what is on disk; run go generate\n"
	if code != exitFail || stderr != wantErr {
		t.Fatalf("stale: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, wantErr)
	}
	var constant string
	for line := range strings.SplitSeq(stdout, "\n") {
		if strings.HasPrefix(line, "+const calculatorOpenRPC = ") {
			constant = line
		}
	}
	if !strings.Contains(constant, `"description":"Add returns the sum of a and b."`) || !strings.HasSuffix(constant, " bytes, shortened]") || len(constant) > 400 {
		t.Errorf("the OpenRPC constant's line in the diff: %q", constant)
	}
	if !strings.Contains(stdout, "-// Add returns a + b.\n+// Add returns the sum of a and b.\n") {
		t.Errorf("diff lacks the doc comment's change:\n%s", stdout)
	}

	// One package, or the one in the current directory: --check with no
	// interface is check of ".".
	if code, _, _ := runIn(t, root, "check", "./tools"); code != exitOK {
		t.Errorf("check ./tools: exit %d", code)
	}
	if code, _, stderr := runIn(t, filepath.Join(root, "calc"), "--check"); code != exitFail || !strings.Contains(stderr, "rpcgen: calc.openrpc.json is stale") {
		t.Errorf("--check in calc: exit %d, stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runIn(t, filepath.Join(root, "calc"), "check"); code != exitFail || !strings.Contains(stderr, "rpcgen: calculator_rpcgen.go is stale") {
		t.Errorf("check in calc: exit %d, stderr:\n%s", code, stderr)
	}

	// A package whose lines run other generators, or none.
	if code, stdout, stderr := runIn(t, root, "check", "./plain"); code != exitOK || stdout != "" || stderr != "rpcgen: no //go:generate line runs rpcgen in ./plain\n" {
		t.Errorf("check ./plain: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCheckCommandErrors: a line that cannot run, a line that names no
// interface, a bad pattern and misplaced flags are reported, with exit 1
// for the packages' problems and 2 for the command line's.
func TestCheckCommandErrors(t *testing.T) {
	root := writeModule(t, map[string]string{
		"go.mod":     "module example.com/calc\n\ngo 1.26.0\n",
		"bad/bad.go": "package bad\n\n//go:generate rpcgen --nope Calculator\n//go:generate rpcgen --strict\n//go:generate rpcgen Missing\n",
	})
	code, _, stderr := runIn(t, root, "check", "./bad")
	for _, want := range []string{
		"bad/bad.go:3: //go:generate rpcgen --nope Calculator\nrpcgen: unknown flag: --nope\n",
		"bad/bad.go:4: //go:generate rpcgen --strict\nrpcgen: the line names no interface\n",
		"bad/bad.go:5: //go:generate rpcgen Missing\nrpcgen: no type Missing in package bad",
		"rpcgen: 3 of 3 //go:generate lines",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}

	if code, _, stderr := runIn(t, root, "check", "./nowhere"); code != exitFail || !strings.Contains(stderr, "nowhere") {
		t.Errorf("check ./nowhere: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(t, root, "--check", "--out", "x.go"); code != exitUsage || !strings.Contains(stderr, "--out belongs on those lines") {
		t.Errorf("--check --out with no interface: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runIn(t, root, "check", "--strict", "./bad"); code != exitUsage || !strings.Contains(stderr, "unknown flag: --strict") {
		t.Errorf("check --strict: exit %d, stderr %q", code, stderr)
	}
}
