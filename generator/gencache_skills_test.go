package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestGenCacheSkills: the output cache answers again only while the skills
// directory of //rpcgen:skills holds the same files with the same bytes: an
// edited file, an added one and a removed one each give a new output.
func TestGenCacheSkills(t *testing.T) {
	root := t.TempDir()
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	goldentest.WriteModule(t, root, repo)
	dir := filepath.Join(root, "sk")
	goldentest.MustWrite(t, filepath.Join(dir, "sk.go"), []byte("package sk\n\nimport \"context\"\n\n// S serves skills.\n//\n//rpcgen:skills dir=skills\ntype S interface {\n\t// A does a.\n\tA(ctx context.Context) error\n}\n"))
	md := filepath.Join(dir, "skills", "a", "SKILL.md")
	goldentest.MustWrite(t, md, []byte("---\nname: a\ndescription: Does a.\n---\n"))
	cfg := Config{Dir: dir, Interfaces: []string{"S"}, Output: "s_rpcgen.go"}
	cached := Cache{Dir: filepath.Join(root, "cache")}
	out := filepath.Join(dir, cfg.Output)
	gen := func(what string, want ...string) []byte {
		t.Helper()
		got, err := cached.Generate(cfg)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, w := range want {
			if !bytes.Contains(got[out], []byte(w)) {
				t.Errorf("%s: the output lacks %q", what, w)
			}
		}
		return got[out]
	}
	gen("first", "skill://a/SKILL.md")
	gen("again", "skill://a/SKILL.md")
	goldentest.MustWrite(t, md, []byte("---\nname: a\ndescription: Does a, better.\n---\n"))
	gen("SKILL.md edited", "Does a, better.")
	extra := filepath.Join(dir, "skills", "a", "references", "MORE.md")
	goldentest.MustWrite(t, extra, []byte("more\n"))
	gen("a file added", "skill://a/references/MORE.md")
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if b := gen("the file removed"); bytes.Contains(b, []byte("MORE.md")) {
		t.Errorf("the removed file is still in the output")
	}
}
