package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// skills writes the skills of //rpcgen:skills: the files embedded (each by
// name, exactly those read at generate time) and the mcpserver.Skills that
// serves them, with every entry's frontmatter, digests and sizes computed
// at generate time.
func (g *emitter) skills(s *model.Service) {
	set := s.Skills
	f := g.file
	files := naming.LowerFirst(s.Name) + "SkillFiles"
	var embeds []string
	for _, sk := range set.Skills {
		for _, fl := range sk.Files {
			embeds = append(embeds, fl.Embed)
		}
	}
	f.Line()
	f.Commentf("%s holds the files of the skills in %s, each named as it was read.", files, set.Dir)
	f.Comment("//go:embed " + strings.Join(embeds, " "))
	f.Var().Id(files).Qual("embed", "FS")

	name := s.Name + "Skills"
	f.Line()
	f.Commentf("%s are the Agent Skills in %s (//rpcgen:skills), checked and", name, set.Dir)
	f.Comment("digested at generate time, for mcpserver.Server.AddSkills: the server then")
	f.Commentf("declares the MCP Skills extension (%s) and serves", "io.modelcontextprotocol/skills")
	f.Comment("skills/list, skills/get, resources/directory/read and each file by resources/read.")
	f.Var().Id(name).Op("=").Qual(model.MCPServerPath, "Skills").Values(jen.Dict{
		jen.Id("FS"): jen.Id(files),
		jen.Id("Skills"): jen.Index().Qual(model.MCPServerPath, "ServedSkill").ValuesFunc(func(list *jen.Group) {
			for _, sk := range set.Skills {
				var res, fls []jen.Code
				for _, fl := range sk.Files {
					uri := "skill://" + sk.Path + "/" + fl.Rel
					res = append(res, jen.Values(jen.Dict{
						jen.Id("URI"): jen.Lit(uri), jen.Id("Digest"): jen.Lit(fl.Digest), jen.Id("Size"): jen.Lit(int(fl.Size)),
					}))
					file := jen.Dict{jen.Id("Path"): jen.Lit(fl.Embed), jen.Id("MIMEType"): jen.Lit(fl.MIMEType)}
					if fl.Text {
						file[jen.Id("Text")] = jen.True()
					}
					fls = append(fls, jen.Values(file))
				}
				list.Values(jen.Dict{
					jen.Id("Entry"): jen.Qual(model.MCPPath, "Skill").Values(jen.Dict{
						jen.Id("URI"):         jen.Lit(sk.URI()),
						jen.Id("Frontmatter"): jen.Qual("encoding/json", "RawMessage").Call(rawString(sk.Frontmatter)),
						jen.Id("Resources"):   jen.Index().Qual(model.MCPPath, "SkillResource").Values(res...),
					}),
					jen.Id("Name"):        jen.Lit(sk.Name),
					jen.Id("Description"): jen.Lit(sk.Description),
					jen.Id("Files"):       jen.Index().Qual(model.MCPServerPath, "SkillFile").Values(fls...),
				})
			}
		}),
	})
}
