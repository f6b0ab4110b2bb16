package mcpclient_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

const (
	skillMD  = "---\nname: pdf-tools\ndescription: Fill PDF forms\n---\n\n# PDF tools\n\nSee references/FORMS.md.\n"
	skillRef = "# Forms\n\nFill each field.\n"
	skillURI = "skill://pdf-tools/SKILL.md"
	formsURI = "skill://pdf-tools/references/FORMS.md"
	logoURI  = "skill://pdf-tools/assets/logo.bin"
)

var skillLogo = []byte{0x89, 'P', 'N', 'G', 0xff, 0x00}

func digestOf(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// skillsFixture is one skill of three files, the entry computed here as the
// generator computes it; served holds the bytes the server serves, which a
// test may make differ from the entry.
func skillsFixture(served fstest.MapFS) mcpserver.Skills {
	files := []struct {
		uri, path, mime string
		text            bool
		b               []byte
	}{
		{skillURI, "skills/pdf-tools/SKILL.md", "text/markdown", true, []byte(skillMD)},
		{logoURI, "skills/pdf-tools/assets/logo.bin", "application/octet-stream", false, skillLogo},
		{formsURI, "skills/pdf-tools/references/FORMS.md", "text/markdown", true, []byte(skillRef)},
	}
	sk := mcpserver.ServedSkill{
		Entry: mcp.Skill{URI: skillURI, Frontmatter: json.RawMessage(`{"name":"pdf-tools","description":"Fill PDF forms"}`)},
		Name:  "pdf-tools", Description: "Fill PDF forms",
	}
	for _, f := range files {
		sk.Entry.Resources = append(sk.Entry.Resources, mcp.SkillResource{URI: f.uri, Digest: digestOf(f.b), Size: int64(len(f.b))})
		sk.Files = append(sk.Files, mcpserver.SkillFile{Path: f.path, MIMEType: f.mime, Text: f.text})
		if _, ok := served[f.path]; !ok {
			served[f.path] = &fstest.MapFile{Data: f.b}
		}
	}
	return mcpserver.Skills{FS: served, Skills: []mcpserver.ServedSkill{sk}}
}

func skillsClient(t *testing.T, version string, served fstest.MapFS) *mcpclient.Client {
	t.Helper()
	srv := mcpserver.New(mcp.Implementation{Name: "skills", Version: "1"}, nil)
	srv.AddSkills(skillsFixture(served))
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{ProtocolVersion: version,
		Extensions: []mcp.Extension{{ID: mcp.SkillsExtensionID}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSkills lists, gets and reads a skill in both eras, verifying each file
// (text and binary), and lists its directories.
func TestSkills(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{mcp.Version20251125, mcp.Version20260728} {
		c := skillsClient(t, version, fstest.MapFS{})
		if s, ok := c.ServerExtension(mcp.SkillsExtensionID); !ok || string(s) != `{"directoryRead":true}` {
			t.Errorf("%s: the server declares %s, %v", version, s, ok)
		}
		skills, err := c.ListSkills(ctx)
		if err != nil || len(skills) != 1 || skills[0].URI != skillURI || len(skills[0].Resources) != 3 {
			t.Fatalf("%s: ListSkills = %+v, %v", version, skills, err)
		}
		got, err := c.GetSkill(ctx, skillURI)
		if err != nil || string(got.Frontmatter) != `{"name":"pdf-tools","description":"Fill PDF forms"}` {
			t.Fatalf("%s: GetSkill = %+v, %v", version, got, err)
		}
		for uri, want := range map[string]string{"": skillMD, formsURI: skillRef, logoURI: string(skillLogo)} {
			b, err := c.ReadSkillFile(ctx, got, uri)
			if err != nil || string(b) != want {
				t.Errorf("%s: ReadSkillFile(%q) = %q, %v", version, uri, b, err)
			}
		}
		var re *runtime.Error
		if _, err := c.GetSkill(ctx, "skill://nothing/SKILL.md"); !errors.As(err, &re) || re.Code != runtime.CodeInvalidParams {
			t.Errorf("%s: GetSkill of an unknown skill: %v, want -32602", version, err)
		}
		root, err := c.ReadSkillDirectory(ctx, "skill://pdf-tools")
		var names []string
		for _, r := range root {
			names = append(names, r.Name+" "+r.MIMEType)
		}
		if want := []string{"SKILL.md text/markdown", "assets inode/directory", "references inode/directory"}; err != nil || !slices.Equal(names, want) {
			t.Errorf("%s: ReadSkillDirectory(root) = %q, %v; want %q", version, names, err, want)
		}
		refs, err := c.ReadSkillDirectory(ctx, "skill://pdf-tools/references")
		if err != nil || len(refs) != 1 || refs[0].URI != formsURI || refs[0].Size != int64(len(skillRef)) {
			t.Errorf("%s: ReadSkillDirectory(references) = %+v, %v", version, refs, err)
		}
		if _, err := c.ReadSkillDirectory(ctx, skillURI); !errors.As(err, &re) || re.Code != runtime.CodeInvalidParams {
			t.Errorf("%s: ReadSkillDirectory of a file: %v, want -32602", version, err)
		}
		res, err := c.ListResources(ctx)
		if err != nil || len(res) != 3 || res[0].URI != skillURI || res[0].Name != "pdf-tools" || res[0].Description != "Fill PDF forms" {
			t.Errorf("%s: ListResources = %+v, %v", version, res, err)
		}
	}
}

// TestSkillVerification: a file whose served bytes differ from the entry
// (same size, other bytes; other size) is refused and not returned, as is
// a file the entry does not list.
func TestSkillVerification(t *testing.T) {
	ctx := context.Background()
	tampered := fstest.MapFS{
		"skills/pdf-tools/SKILL.md":            {Data: []byte(skillMD[:len(skillMD)-2] + "!\n")},
		"skills/pdf-tools/references/FORMS.md": {Data: []byte(skillRef + "more")},
	}
	c := skillsClient(t, mcp.Version20260728, tampered)
	sk, err := c.GetSkill(ctx, skillURI)
	if err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{skillURI, formsURI, "skill://pdf-tools/other.md"} {
		b, err := c.ReadSkillFile(ctx, sk, uri)
		if !errors.Is(err, mcpclient.ErrSkillVerification) || b != nil {
			t.Errorf("ReadSkillFile(%s) = %q, %v; want ErrSkillVerification", uri, b, err)
		}
	}
	if b, err := c.ReadSkillFile(ctx, sk, logoURI); err != nil || string(b) != string(skillLogo) {
		t.Errorf("the untampered file: %q, %v", b, err)
	}
}

// TestSkillsNotDeclared: the typed client sends nothing for a client that
// did not declare the extension.
func TestSkillsNotDeclared(t *testing.T) {
	srv := mcpserver.New(mcp.Implementation{Name: "skills", Version: "1"}, nil)
	srv.AddSkills(skillsFixture(fstest.MapFS{}))
	c, err := mcpclient.ConnectTransport(context.Background(), srv.InProcess(), mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ListSkills(context.Background()); !errors.Is(err, mcpclient.ErrExtensionNotDeclared) {
		t.Errorf("ListSkills without declaring the extension: %v", err)
	}
}
