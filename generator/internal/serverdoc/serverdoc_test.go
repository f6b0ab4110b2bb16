package serverdoc

import (
	"encoding/json"
	"strings"
	"testing"
)

func good() Meta {
	return Meta{Name: "io.github.example/notes", Remotes: []string{"https://notes.example.com/mcp"}}
}

var both = Outputs{ServerJSON: "server.json", ServerCard: "card.json", Version: "1.0.0", Doc: "Notes keeps notes. On disk."}

// TestRefusals: each value the registry's schema or its publisher would
// refuse is an error at generate time naming the flag to fix.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Meta, *Outputs)
		want string
	}{
		{"no name", func(m *Meta, _ *Outputs) { m.Name = "" }, "--server-json needs --server-name"},
		{"name without slash", func(m *Meta, _ *Outputs) { m.Name = "notes" }, `--server-name "notes": want a reverse-DNS namespace`},
		{"name with two slashes", func(m *Meta, _ *Outputs) { m.Name = "io.github/a/b" }, "--server-name"},
		{"name too long", func(m *Meta, _ *Outputs) { m.Name = "io.github.example/" + strings.Repeat("n", 190) }, "at most 200 characters"},
		{"title too long", func(m *Meta, _ *Outputs) { m.Title = strings.Repeat("t", 101) }, "--server-title is 101 characters"},
		{"description too long", func(m *Meta, _ *Outputs) { m.Description = strings.Repeat("d", 101) }, "from --server-description is 101 characters"},
		{"no description", func(_ *Meta, o *Outputs) { o.Doc = "" }, "needs a description: give --server-description"},
		{"version latest", func(_ *Meta, o *Outputs) { o.Version = "latest" }, `--api-version "latest"`},
		{"version range", func(_ *Meta, o *Outputs) { o.Version = "^1.2.3" }, "not a range"},
		{"version wildcard", func(_ *Meta, o *Outputs) { o.Version = "1.x" }, "not a range"},
		{"website relative", func(m *Meta, _ *Outputs) { m.WebsiteURL = "notes.example.com" }, "--website"},
		{"repository unknown host", func(m *Meta, _ *Outputs) { m.Repository = "https://example.com/notes" }, "github.com and gitlab.com"},
		{"subfolder without repository", func(m *Meta, _ *Outputs) { m.RepositorySubfolder = "cmd" }, "--repository-subfolder needs --repository"},
		{"subfolder escapes", func(m *Meta, _ *Outputs) {
			m.Repository, m.RepositorySubfolder = "https://github.com/e/n", "../x"
		}, "clean relative path"},
		{"package without type", func(m *Meta, _ *Outputs) { m.Packages = []string{"notes"} }, "want TYPE:IDENTIFIER"},
		{"package type unknown", func(m *Meta, _ *Outputs) { m.Packages = []string{"gem:notes"} }, `unknown package type "gem"`},
		{"package mcpb", func(m *Meta, _ *Outputs) { m.Packages = []string{"mcpb:https://x/y.mcpb"} }, "SHA-256"},
		{"oci without tag", func(m *Meta, _ *Outputs) { m.Packages = []string{"oci:ghcr.io/e/notes"} }, "tag or a digest"},
		{"remote not a URL", func(m *Meta, _ *Outputs) { m.Remotes = []string{"ws://x/mcp"} }, "--remote"},
		{"env without package", func(m *Meta, _ *Outputs) { m.Env = []string{"A=b"} }, "give the package with --package"},
		{"env bad name", func(m *Meta, _ *Outputs) { m.Packages, m.Env = []string{"npm:n"}, []string{"A-B=c"} }, `--env "A-B=c"`},
		{"env twice", func(m *Meta, _ *Outputs) { m.Packages, m.Env = []string{"npm:n"}, []string{"A=b", "A=c"} }, "given twice"},
		{"secret undeclared", func(m *Meta, _ *Outputs) { m.Packages, m.EnvSecret = []string{"npm:n"}, []string{"TOKEN"} }, "--env-secret TOKEN: no --env declares TOKEN"},
		{"card without remote", func(m *Meta, _ *Outputs) { m.Remotes = nil }, "--server-card: a Server Card describes a remote server"},
		{"metadata without output", func(_ *Meta, o *Outputs) { o.ServerJSON, o.ServerCard = "", "" }, "--server-name describes the server for --server-json or --server-card"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, o := good(), both
			tc.edit(&m, &o)
			files, err := Files(m, o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q (files %d)", err, tc.want, len(files))
			}
		})
	}
}

// TestDefaults: the description is the doc comment's first sentence, the
// version defaults to 0.0.0, and nothing asked for writes nothing.
func TestDefaults(t *testing.T) {
	files, err := Files(good(), Outputs{ServerJSON: "s.json", Doc: "Notes keeps notes.\nOne a file. More."})
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Description, Version string }
	if err := json.Unmarshal(files["s.json"], &s); err != nil {
		t.Fatal(err)
	}
	if s.Description != "Notes keeps notes." {
		t.Errorf("description %q", s.Description)
	}
	if s.Version != "0.0.0" {
		t.Errorf("version %q, want 0.0.0", s.Version)
	}
	if files, err := Files(Meta{}, Outputs{Doc: "x"}); err != nil || files != nil {
		t.Errorf("nothing asked: %v, %v", files, err)
	}
}
