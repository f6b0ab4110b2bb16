package generator

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/rpcgen/rpcgen/generator/internal/contract"
	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestBreakingGolden runs the cases of testdata/breaking: each archive holds
// a package as it was (old/) and as it is (new/), the interfaces (args),
// and the report rpcgen breaking --safe gives (want), followed by the
// number of breaking changes no directive ignores. -update rewrites want.
func TestBreakingGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages")
	}
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(repo, "testdata", "breaking", "*.txtar"))
	if len(paths) == 0 {
		t.Fatal("no cases in testdata/breaking")
	}
	root := t.TempDir()
	goldentest.WriteModule(t, root, repo)
	seen := map[string]bool{}       // rule and verdict (verdict) of each report line
	doneSafely := map[string]bool{} // rules a case made its changes around
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ifaces []string
			var want []byte
			wantAt := -1
			for i, f := range ar.Files {
				dir := filepath.Join(root, name)
				switch {
				case f.Name == "args":
					ifaces = strings.Fields(string(f.Data))
				case f.Name == "want":
					want, wantAt = f.Data, i
				default:
					goldentest.MustWrite(t, filepath.Join(dir, filepath.FromSlash(f.Name)), f.Data)
				}
			}
			old, err := Contract(Config{Dir: filepath.Join(root, name, "old"), Interfaces: ifaces}, false)
			if err != nil {
				t.Fatalf("old: %v", err)
			}
			now, err := Contract(Config{Dir: filepath.Join(root, name, "new"), Interfaces: ifaces}, true)
			if err != nil {
				t.Fatalf("new: %v", err)
			}
			var got bytes.Buffer
			n, err := Breaking(old, now, true, &got)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&got, "breaking: %d\n", n)
			// A case made the safe way says around which rules: none of
			// them fires, and nothing breaks.
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				rules, ok := strings.CutPrefix(line, "done safely:")
				if !ok {
					continue
				}
				if n != 0 {
					t.Errorf("done safely, yet %d breaking changes", n)
				}
				for _, r := range strings.Fields(rules) {
					if _, ok := contract.RuleByName(r); !ok {
						t.Errorf("done safely around %s, which is no rule", r)
					}
					if strings.Contains(got.String(), ": "+r+" (") {
						t.Errorf("done safely around %s, yet it fires", r)
					} else if n == 0 {
						doneSafely[r] = true
					}
				}
			}
			for _, line := range strings.Split(got.String(), "\n") {
				if f := strings.Fields(line); len(f) > 1 && strings.HasSuffix(f[0], ":") && strings.Contains(line, " (") {
					seen[f[1]+verdict(line)] = true
				}
			}
			if *update {
				if wantAt < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					wantAt = len(ar.Files) - 1
				}
				ar.Files[wantAt].Data = got.Bytes()
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("report differs from want (-update rewrites it):\n%s", goldentest.Diff(got.Bytes(), want))
			}
		})
	}
	if t.Failed() || *update {
		return
	}
	// The corpus is complete: every breaking rule has a case where it
	// breaks and a case where its change is made the safe way (a "done
	// safely:" line naming it, in a case where nothing breaks); every safe
	// rule has a case where it is listed as safe.
	for _, r := range contract.Rules {
		switch {
		case r.Breaking && !seen[r.Name+"!"]:
			t.Errorf("breaking rule %s breaks in no case of testdata/breaking", r.Name)
		case r.Breaking && !doneSafely[r.Name]:
			t.Errorf("breaking rule %s has no case of testdata/breaking making its change safely (a \"done safely: %s\" line)", r.Name, r.Name)
		case !r.Breaking && !seen[r.Name+"+"]:
			t.Errorf("safe rule %s is listed in no case of testdata/breaking", r.Name)
		}
	}
}

// TestBreakingRulesDocumented: docs/evolving.md names every rule in its
// tables (a "| `RULE` |" row for a breaking rule, the safe ones in their
// list), and names no rule rpcgen does not have.
func TestBreakingRulesDocumented(t *testing.T) {
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "evolving.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range contract.Rules {
		want := "`" + r.Name + "`"
		if r.Breaking {
			want = "| " + want + " |"
		}
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/evolving.md does not document rule %s (no %q)", r.Name, want)
		}
	}
	for _, f := range strings.FieldsFunc(string(doc), func(r rune) bool { return r == '`' || r == ' ' || r == '|' || r == '\n' || r == ',' }) {
		if isRuleName(f) {
			if _, ok := contract.RuleByName(f); !ok {
				t.Errorf("docs/evolving.md names %s, which is no rule of rpcgen breaking", f)
			}
		}
	}
}

// isRuleName says s looks like a rule's name: upper-case words joined by
// underscores, two at least.
func isRuleName(s string) bool {
	if !strings.Contains(s, "_") || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && r != '_' {
			return false
		}
	}
	return true
}

// verdict marks a report line: ! breaking, ~ ignored, + safe.
func verdict(line string) string {
	switch {
	case strings.Contains(line, "[ignored:"):
		return "~"
	case strings.Contains(line, "[safe]"):
		return "+"
	}
	return "!"
}
