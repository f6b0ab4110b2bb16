package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// rootPath is the module path of the repository's root module.
const rootPath = "github.com/rpcgen/rpcgen"

// A repoModule is one module of the repository.
type repoModule struct {
	Dir      string // slash-separated, relative to the repository; "" for the root
	Path     string // the module path its go.mod declares
	File     *modfile.File
	Released bool // tagged at each release: the root and the modules under ext/
}

// Tag is the module's tag for version: the version itself for the root,
// prefixed by the module's directory for a module below it
// (ext/otel/v0.2.0), as the go command looks for it.
func (m *repoModule) Tag(version string) string {
	if m.Dir == "" {
		return version
	}
	return m.Dir + "/" + version
}

// findModules reads every go.mod of the repository at repo, the root's
// first, then in directory order. Directories the go command ignores
// (testdata, names starting with . or _) and node_modules are skipped.
func findModules(repo string) ([]*repoModule, error) {
	var mods []*repoModule
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != repo && (name == "testdata" || name == "node_modules" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := modfile.Parse(p, data, nil)
		if err != nil {
			return err
		}
		if f.Module == nil {
			return fmt.Errorf("%s: no module line", p)
		}
		rel, err := filepath.Rel(repo, filepath.Dir(p))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		if dir == "." {
			dir = ""
		}
		mods = append(mods, &repoModule{
			Dir:      dir,
			Path:     f.Module.Mod.Path,
			File:     f,
			Released: dir == "" || path.Dir(dir) == "ext",
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(mods, func(a, b *repoModule) int { return strings.Compare(a.Dir, b.Dir) })
	if len(mods) == 0 || mods[0].Dir != "" || mods[0].Path != rootPath {
		return nil, fmt.Errorf("%s is not the root of the repository of %s", repo, rootPath)
	}
	return mods, nil
}

// checkPaths reports a released module whose path is not the root's path
// joined with its directory: its prefixed tag would not be found.
func checkPaths(mods []*repoModule) []string {
	var problems []string
	for _, m := range mods {
		want := rootPath
		if m.Dir != "" {
			want += "/" + m.Dir
		}
		if m.Released && m.Path != want {
			problems = append(problems, fmt.Sprintf("%s/go.mod: module %s, but a module released from %s must be %s", dirName(m.Dir), m.Path, dirName(m.Dir), want))
		}
	}
	return problems
}

func dirName(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// releaseOrder returns the released modules in the order they are tagged:
// a module after every released module it requires (the root first),
// otherwise by directory.
func releaseOrder(mods []*repoModule) ([]*repoModule, error) {
	byPath := map[string]*repoModule{}
	var todo []*repoModule
	for _, m := range mods {
		if m.Released {
			byPath[m.Path] = m
			todo = append(todo, m)
		}
	}
	done := map[string]bool{}
	var order []*repoModule
	for len(todo) > 0 {
		progress := false
		for i := 0; i < len(todo); i++ {
			m := todo[i]
			ready := true
			for _, r := range m.File.Require {
				if _, ours := byPath[r.Mod.Path]; ours && !done[r.Mod.Path] {
					ready = false
				}
			}
			if ready {
				order = append(order, m)
				done[m.Path] = true
				todo = slices.Delete(todo, i, i+1)
				progress = true
				break // start again from the first directory
			}
		}
		if !progress {
			var names []string
			for _, m := range todo {
				names = append(names, m.Path)
			}
			return nil, fmt.Errorf("released modules require each other in a cycle: %s", strings.Join(names, ", "))
		}
	}
	return order, nil
}

// ownRequirements lists, for each module, its requirements of the
// repository's modules that are not at version: what a release at
// version must change, and what must hold when it is tagged.
func ownRequirements(mods []*repoModule, version string) []string {
	ours := map[string]bool{}
	for _, m := range mods {
		ours[m.Path] = true
	}
	var off []string
	for _, m := range mods {
		for _, r := range m.File.Require {
			if ours[r.Mod.Path] && r.Mod.Version != version {
				off = append(off, fmt.Sprintf("%s/go.mod requires %s %s", dirName(m.Dir), r.Mod.Path, r.Mod.Version))
			}
		}
	}
	return off
}

// setRequirements makes every module of the repository at repo require
// the repository's modules at version, leaving the replace directives
// that point them at each other's directories; it returns the go.mod
// files it changed.
func setRequirements(repo string, mods []*repoModule, version string) ([]string, error) {
	ours := map[string]bool{}
	for _, m := range mods {
		ours[m.Path] = true
	}
	var changed []string
	for _, m := range mods {
		touched := false
		for _, r := range slices.Clone(m.File.Require) {
			if ours[r.Mod.Path] && r.Mod.Version != version {
				if err := m.File.AddRequire(r.Mod.Path, version); err != nil {
					return changed, err
				}
				touched = true
			}
		}
		if !touched {
			continue
		}
		m.File.Cleanup()
		data, err := m.File.Format()
		if err != nil {
			return changed, err
		}
		name := filepath.Join(repo, filepath.FromSlash(m.Dir), "go.mod")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return changed, err
		}
		changed = append(changed, path.Join(m.Dir, "go.mod"))
	}
	return changed, nil
}
