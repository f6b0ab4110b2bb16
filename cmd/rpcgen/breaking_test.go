package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBreakingHistory runs rpcgen breaking across this repository's own
// history: examples/notes at each commit that changed its interface,
// compared with the next, and examples/calculator before and after it
// declared an error. It checks that each comparison runs, and that what it
// reports is what those commits really changed. It needs the repository's
// history: a clone (git clone of a path or a URL without --depth) has it.
func TestBreakingHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("loads old revisions of the examples")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to read old revisions")
	}
	const (
		notesMCP       = "b35c0de858e14ec75524a3ab457f35ff49d95fba" // examples/notes: the notes service as MCP tools
		notesOpenRPC   = "9c61f17a3138c70b10433b31f43d7af8baac195a" // content tools, OpenRPC
		notesResource  = "0b51908ad3481bb0ed1a16610b4491e4d2770748" // a note resource, a completion and a prompt
		calcBefore     = "9ffbb684beccd82b1e38810798fc9090799ac09e" // OpenRPC polish
		calcDeclaresEr = "ac9ef8eed7c97d80ca220032ae1aca5298656160" // declared errors: Divide's DivisionByZero
	)
	for _, c := range []string{notesMCP, notesOpenRPC, notesResource, calcBefore, calcDeclaresEr} {
		if err := exec.Command("git", "cat-file", "-e", c+"^{commit}").Run(); err != nil {
			t.Fatalf("commit %s is not in this clone (a shallow clone lacks the history this test reads): %v", c, err)
		}
	}
	breaking := func(t *testing.T, dir, iface, old, new string) (string, int) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run([]string{"breaking", "--dir", dir, "--against", "git:" + old, "--new", "git:" + new, "--safe", iface}, &stdout, &stderr)
		if code != exitOK && code != exitFail || code == exitFail && !strings.Contains(stderr.String(), "breaking change(s)") {
			t.Fatalf("%s..%s: exit %d\n%s", old[:7], new[:7], code, stderr.String())
		}
		return stdout.String(), code
	}
	notes := filepath.Join("..", "..", "examples", "notes")
	calc := filepath.Join("..", "..", "examples", "calculator")

	// Divide declared DivisionByZero (code 1001): a safe change of the
	// method, a new digest for its tool, nothing breaking.
	got, code := breaking(t, calc, "Calculator", calcBefore, calcDeclaresEr)
	for _, want := range []string{
		"calculator.go:28:2: ERROR_ADDED (WIRE): method calculator.divide error DivisionByZero [safe]\n\told: absent\n\tnew: DivisionByZero (code 1001)",
		"TOOL_DIGEST_CHANGED (MCP): tool divide digest [safe]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("calculator %s..%s: the report lacks %q:\n%s", calcBefore[:7], calcDeclaresEr[:7], want, got)
		}
	}
	if code != exitOK {
		t.Errorf("calculator: exit %d, want 0:\n%s", code, got)
	}
	if os.Getenv("RPCGEN_HISTORY") == "" {
		t.Log("RPCGEN_HISTORY=1 compares examples/notes across its history too (.ci/run does)")
		return
	}

	// Pairwise over the notes service's history: each runs.
	history := []string{notesMCP, notesOpenRPC, notesResource}
	for i := 1; i < len(history); i++ {
		breaking(t, notes, "Notes", history[i-1], history[i])
	}

	// The note resource, its completion and the review prompt were added;
	// with resources and prompts the typed MCP client needs a caller that
	// reads them, which changed NewNotesMCPClient's signature.
	got, code = breaking(t, notes, "Notes", notesOpenRPC, notesResource)
	for _, want := range []string{
		"notes.go:53:2: METHOD_ADDED (WIRE): method notes.note [safe]",
		"notes.go:59:2: METHOD_ADDED (WIRE): method notes.completeNoteID [safe]",
		"RESOURCE_ADDED (MCP): resource note [safe]\n\told: absent\n\tnew: notes://{id}",
		"PROMPT_ADDED (MCP): prompt review_notes [safe]",
		"GO_CHANGED (GO): Go NewNotesMCPClient\n\told: func NewNotesMCPClient(c mcp.ToolCaller) *NotesMCPClient\n\tnew: func NewNotesMCPClient(c mcp.FeatureCaller) *NotesMCPClient",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("notes %s..%s: the report lacks %q:\n%s", notesOpenRPC[:7], notesResource[:7], want, got)
		}
	}
	if code != exitFail || strings.Contains(got, "REMOVED") {
		t.Errorf("notes: exit %d, want 1 (the Go client's signature), and nothing removed:\n%s", code, got)
	}
}

// TestBreakingCommand: rpcgen contract writes a snapshot that rpcgen
// breaking compares with; an OpenRPC document is compared on the JSON-RPC
// rules only; a change that breaks exits 1 and names the rule at its
// position, and the changed tool digests with it; usage errors exit 2.
func TestBreakingCommand(t *testing.T) {
	dir := newPackage(t, calcSrc)
	snap := filepath.Join(t.TempDir(), "calc.contract.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"contract", "--dir", dir, "-o", snap, "Calculator"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("contract: exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(snap)
	if err != nil || !bytes.Contains(data, []byte(`"contract": 1`)) || bytes.Contains(data, []byte(`"pos"`)) {
		t.Fatalf("the snapshot (%v) is not a contract without positions:\n%s", err, data)
	}
	stdout.Reset()
	if code := run([]string{"breaking", "--dir", dir, "--against", snap, "Calculator"}, &stdout, &stderr); code != exitOK || stdout.Len() != 0 {
		t.Fatalf("unchanged: exit %d, report %q, %s", code, stdout.String(), stderr.String())
	}
	src, err := os.ReadFile(filepath.Join(dir, "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "Add(ctx context.Context, a, b int) (int, error)", "Add(ctx context.Context, a, b string) (int, error)", 1)
	if changed == string(src) {
		t.Fatal("calcSrc has no Add(ctx, a, b int) to change")
	}
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	code := run([]string{"breaking", "--dir", dir, "--against", snap, "Calculator"}, &stdout, &stderr)
	if code != exitFail || !strings.Contains(stdout.String(), ": PARAM_NARROWED (WIRE): method calculator.add param a\n\told: integer\n\tnew: string") ||
		!strings.Contains(stderr.String(), "breaking change(s) against") {
		t.Errorf("a param retyped: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	// The tool's new digest is printed without --safe (hosts that pinned
	// it ask again); other safe changes are not.
	if !strings.Contains(stdout.String(), ": TOOL_DIGEST_CHANGED (MCP): tool add digest [safe]\n\told: sha256:") ||
		strings.Contains(stdout.String(), "TOOL_INPUT_WIDENED") {
		t.Errorf("a param retyped, without --safe: the report should name the changed digest and list no other safe change:\n%s", stdout.String())
	}
	for _, args := range [][]string{
		{"breaking", "--dir", dir, "Calculator"},
		{"breaking", "--against", snap},
	} {
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}
