package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestNotesSkill lists the notes server's skill (//rpcgen:skills dir=skills)
// with rpcgen's client, which declares the Skills extension, in both eras,
// and reads its SKILL.md, verified against the entry's size and digest: the
// bytes are those of skills/notes-triage/SKILL.md, and the entry's
// frontmatter has the file's name and description.
func TestNotesSkill(t *testing.T) {
	ctx := context.Background()
	want, err := os.ReadFile("skills/notes-triage/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		c, err := mcpclient.ConnectTransport(ctx, newServer(newStore(time.Millisecond), slog.New(slog.DiscardHandler)).InProcess(),
			mcpclient.Options{ProtocolVersion: version, Extensions: []mcp.Extension{{ID: mcp.SkillsExtensionID}}})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		defer c.Close()
		skills, err := c.ListSkills(ctx)
		if err != nil || len(skills) != 1 || skills[0].URI != "skill://notes-triage/SKILL.md" {
			t.Fatalf("%s: skills/list = %+v, %v; want skill://notes-triage/SKILL.md alone", version, skills, err)
		}
		var fm struct{ Name, Description string }
		if err := json.Unmarshal(skills[0].Frontmatter, &fm); err != nil || fm.Name != "notes-triage" ||
			!strings.HasPrefix(fm.Description, "Sort the user's notes") || !strings.HasSuffix(fm.Description, "clean up old ones.") {
			t.Errorf("%s: frontmatter %s (%v)", version, skills[0].Frontmatter, err)
		}
		got, err := c.ReadSkillFile(ctx, &skills[0], "")
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: SKILL.md read as %q, %v; want the file", version, got, err)
		}
	}
}
