package generator

import (
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// onlySchemas drops the outputs other than schema files from got when the
// case asks for it.
func onlySchemas(ar *txtar.Archive, cfg Config, got map[string][]byte) map[string][]byte {
	i := slices.IndexFunc(ar.Files, func(f txtar.File) bool { return f.Name == "args" })
	if i < 0 || !slices.Contains(strings.Fields(string(ar.Files[i].Data)), goldentest.OnlySchemasWord) {
		return got
	}
	prefix := "want/" + filepath.ToSlash(filepath.Clean(cfg.SchemaDir)) + "/"
	for name := range got {
		if name != "want/stderr" && name != "want/warnings" && !strings.HasPrefix(name, prefix) {
			delete(got, name)
		}
	}
	return got
}
