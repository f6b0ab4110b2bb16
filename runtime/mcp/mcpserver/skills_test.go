package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

const skillsDigest = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

func skillsServer(t *testing.T) *mcpserver.Server {
	t.Helper()
	srv := mcpserver.New(mcp.Implementation{Name: "sk", Version: "1"}, nil)
	srv.AddSkills(mcpserver.Skills{
		FS: fstest.MapFS{"s/a/SKILL.md": {Data: []byte("---\nname: a\ndescription: d\n---\n")}},
		Skills: []mcpserver.ServedSkill{{
			Entry: mcp.Skill{URI: "skill://a/SKILL.md", Frontmatter: json.RawMessage(`{"name":"a","description":"d"}`),
				Resources: []mcp.SkillResource{{URI: "skill://a/SKILL.md", Digest: skillsDigest, Size: 32}}},
			Name: "a", Description: "d",
			Files: []mcpserver.SkillFile{{Path: "s/a/SKILL.md", MIMEType: "text/markdown", Text: true}},
		}},
	})
	return srv
}

// TestSkillsWire: the Skills extension's methods on the wire, for a
// legacy client that did not declare the extension (served all the same)
// and in 2026-07-28, with the cache hints in every era.
func TestSkillsWire(t *testing.T) {
	srv := skillsServer(t)
	ss := srv.NewSession()
	init := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), nil))
	if !strings.Contains(init, `"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}`) || !strings.Contains(init, `"resources":{`) {
		t.Errorf("initialize does not declare the extension and resources: %s", init)
	}
	entry := `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + skillsDigest + `","size":32}]}`
	for _, tc := range []struct{ method, params, want string }{
		{"skills/list", `{}`, `{"jsonrpc":"2.0","id":2,"result":{"skills":[` + entry + `],"ttlMs":0,"cacheScope":"public"}}`},
		{"skills/get", `{"uri":"skill://a/SKILL.md"}`, `{"jsonrpc":"2.0","id":2,"result":{"skill":` + entry + `,"ttlMs":0,"cacheScope":"public"}}`},
		{"skills/get", `{"uri":"skill://b/SKILL.md"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid params: no skill at \"skill://b/SKILL.md\""}}`},
		{"skills/get", `{}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid params: \"uri\" must be a non-empty string"}}`},
		{"skills/list", `{"cursor":"x"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid params: unknown cursor \"x\""}}`},
		{"resources/directory/read", `{"uri":"skill://a"}`, `{"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"skill://a/SKILL.md","name":"SKILL.md","mimeType":"text/markdown","size":32}],"ttlMs":0,"cacheScope":"public"}}`},
		{"resources/directory/read", `{"uri":"skill://a/SKILL.md"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"invalid params: \"skill://a/SKILL.md\" is a file, not a directory"}}`},
		{"resources/read", `{"uri":"skill://a/SKILL.md"}`, `{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"skill://a/SKILL.md","mimeType":"text/markdown","text":"---\nname: a\ndescription: d\n---\n"}]}}`},
	} {
		got := string(ss.Handle(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"`+tc.method+`","params":`+tc.params+`}`), nil))
		if got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.method, tc.params, got, tc.want)
		}
	}
	got := modern(t, srv, "skills/list", "", `{}`)
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"skills":[`+entry+`],"ttlMs":0,"cacheScope":"public","resultType":"complete"`) {
		t.Errorf("2026-07-28 skills/list from a client that did not declare the extension:\n got %s", got)
	}
}

// TestAddSkillsPanics holds AddSkills to its programmer errors.
func TestAddSkillsPanics(t *testing.T) {
	ok := func() mcpserver.ServedSkill {
		return mcpserver.ServedSkill{
			Entry: mcp.Skill{URI: "skill://a/SKILL.md", Frontmatter: json.RawMessage(`{}`),
				Resources: []mcp.SkillResource{{URI: "skill://a/SKILL.md", Digest: skillsDigest}}},
			Files: []mcpserver.SkillFile{{Path: "a/SKILL.md"}},
		}
	}
	for name, change := range map[string]func(*mcpserver.ServedSkill){
		"not skill.md":   func(s *mcpserver.ServedSkill) { s.Entry.URI = "skill://a/README.md" },
		"files mismatch": func(s *mcpserver.ServedSkill) { s.Files = nil },
		"outside": func(s *mcpserver.ServedSkill) {
			s.Entry.Resources = append(s.Entry.Resources, mcp.SkillResource{URI: "skill://b/x"})
			s.Files = append(s.Files, s.Files[0])
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: AddSkills did not panic", name)
				}
			}()
			sk := ok()
			change(&sk)
			mcpserver.New(mcp.Implementation{Name: "sk", Version: "1"}, nil).AddSkills(mcpserver.Skills{Skills: []mcpserver.ServedSkill{sk}})
		}()
	}
}
