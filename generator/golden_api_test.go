package generator

import (
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// onlyAPI drops the outputs other than the API files from got when the case
// asks for it.
func onlyAPI(ar *txtar.Archive, cfg Config, got map[string][]byte) map[string][]byte {
	i := slices.IndexFunc(ar.Files, func(f txtar.File) bool { return f.Name == "args" })
	if i < 0 || !slices.Contains(strings.Fields(string(ar.Files[i].Data)), goldentest.OnlyAPIWord) {
		return got
	}
	keep := map[string]bool{"want/stderr": true, "want/warnings": true}
	for _, p := range []string{cfg.OpenRPC, cfg.TypeScript, cfg.Docs, cfg.ServerJSON, cfg.ServerCard} {
		if p != "" {
			keep["want/"+filepath.ToSlash(filepath.Clean(p))] = true
		}
	}
	for name := range got {
		if !keep[name] {
			delete(got, name)
		}
	}
	return got
}
