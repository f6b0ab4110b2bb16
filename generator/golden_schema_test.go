package generator

import (
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/txtar"
)

// onlySchemasWord in a golden case's "args" keeps only the --schema-dir files
// (and want/stderr) as the case's expected output: a schema case then tests
// the schemas alone and does not change whenever the emitted Go code does.
// The Go file is still generated and compiled.
const onlySchemasWord = "--only-schemas"

// onlySchemas drops the outputs other than schema files from got when the
// case asks for it.
func onlySchemas(ar *txtar.Archive, cfg Config, got map[string][]byte) map[string][]byte {
	i := slices.IndexFunc(ar.Files, func(f txtar.File) bool { return f.Name == "args" })
	if i < 0 || !slices.Contains(strings.Fields(string(ar.Files[i].Data)), onlySchemasWord) {
		return got
	}
	prefix := "want/" + filepath.ToSlash(filepath.Clean(cfg.SchemaDir)) + "/"
	for name := range got {
		if name != "want/stderr" && !strings.HasPrefix(name, prefix) {
			delete(got, name)
		}
	}
	return got
}
