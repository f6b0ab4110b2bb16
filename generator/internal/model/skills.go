package model

import (
	"go/token"
	"path/filepath"

	"github.com/rpcgen/rpcgen/generator/internal/skills"
)

// buildSkills reads //rpcgen:skills dir=...: the directory of Agent Skills,
// relative to the interface's package directory, that the generated code
// serves through the MCP Skills extension. Every problem of a skill is
// reported at its place in the skill's files.
func (b *builder) buildSkills(d *Directive) *skills.Set {
	if d == nil {
		return nil
	}
	dir, pos, ok := d.value("dir")
	switch {
	case !ok || dir == "":
		b.errs.At(d.Pos, "//rpcgen:skills needs dir=: the directory of skills (each a directory holding a SKILL.md), relative to the package's")
		return nil
	case filepath.IsAbs(dir) || !filepath.IsLocal(filepath.FromSlash(dir)):
		b.errs.At(pos, "//rpcgen:skills dir=%s: name a directory below the package's, relative to it (go:embed reaches no further)", dir)
		return nil
	}
	at := b.errs.Position(pos)
	pkgDir := filepath.Dir(at.Filename)
	return skills.Read(pkgDir, filepath.ToSlash(filepath.Clean(dir)), at, b.read, func(p token.Position, format string, args ...any) {
		b.errs.AtPosition(p, format, args...)
	})
}
