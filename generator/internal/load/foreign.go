package load

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// SplitQualified splits a qualified interface name, "example.com/todo.TodoService"
// or "todo.TodoService", at its last dot into the package part and the type
// name; a name without a dot has no package part.
func SplitQualified(name string) (qualifier, typeName string) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}

// IsRelative reports whether the qualifier q names a directory relative to
// the generating package's ("./sub", "../api"), as go commands accept
// them, rather than an import path or a name the files import.
func IsRelative(q string) bool {
	return strings.HasPrefix(q, "./") || strings.HasPrefix(q, "../")
}

// toLoad returns the qualifiers of foreign that must be loaded besides the
// package's imports: an import path that none of imports is, unless it has
// no slash and names one of imports by its last element (a package the
// files import, which Foreign finds by its name).
func toLoad(foreign, imports []string) []string {
	var out []string
	for _, q := range foreign {
		if q == "" || slices.Contains(imports, q) || slices.Contains(out, q) {
			continue
		}
		if !strings.Contains(q, "/") && slices.ContainsFunc(imports, func(p string) bool { return lastElem(p) == q }) {
			continue
		}
		out = append(out, q)
	}
	return out
}

// lastElem is the last element of an import path, less a major version
// suffix ("example.com/todo/v2" -> "todo"), which is what its package is
// usually named.
func lastElem(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		if d := path.Dir(p); d != "." {
			return path.Base(d)
		}
	}
	return base
}

// loadForeign loads the packages qs from export data, with positions in
// fset, into pkg.Imports.
func loadForeign(pkg *packages.Package, fset *token.FileSet, dir string, flags []string, qs []string) error {
	if len(qs) == 0 {
		return nil
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesSizes, Dir: dir, BuildFlags: flags, Fset: fset}, qs...)
	if err != nil {
		return fmt.Errorf("load %s: %w", strings.Join(qs, ", "), err)
	}
	keepForeign(pkg, pkgs, qs)
	return nil
}

// keepForeign records in pkg.Imports the loaded packages that qs name, by
// qualifier.
// A relative qualifier is matched by directory: go list answers with the
// package's import path, not the pattern.
func keepForeign(pkg *packages.Package, loaded []*packages.Package, qs []string) {
	for _, q := range qs {
		for _, l := range loaded {
			if l.PkgPath == q || l.ID == q || IsRelative(q) && sameDir(l.Dir, relDir(pkg, q)) {
				if pkg.Imports == nil {
					pkg.Imports = map[string]*packages.Package{}
				}
				pkg.Imports[q] = l
			}
		}
	}
}

// relDir is the directory the relative qualifier q names for pkg.
func relDir(pkg *packages.Package, q string) string {
	dir := pkg.Dir
	if dir == "" && len(pkg.GoFiles) > 0 {
		dir = filepath.Dir(pkg.GoFiles[0])
	}
	return filepath.Join(dir, filepath.FromSlash(q))
}

// sameDir reports whether a and b name the same directory, also through
// different spellings (a symbolic link).
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// Foreign returns the package the qualifier q of a qualified interface
// name means for pkg: a package pkg's files import under the name q (when q
// has no slash), the package in the directory q names relative to pkg's
// (when q starts with ./ or ../), or else the package whose import path is
// q, which LoadSources loaded when asked to.
func Foreign(pkg *packages.Package, q string) (*types.Package, error) {
	if IsRelative(q) {
		return relative(pkg, q)
	}
	if !strings.Contains(q, "/") {
		if p := importedAs(pkg, q); p != nil {
			return p, nil
		}
	}
	if l := pkg.Imports[q]; l != nil {
		if len(l.Errors) > 0 {
			return nil, fmt.Errorf("package %s: %s", q, l.Errors[0].Msg)
		}
		if l.Types != nil {
			return l.Types, nil
		}
	}
	for _, p := range pkg.Types.Imports() {
		if p.Path() == q {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no package %s: name it by its import path (example.com/mod/pkg.Interface), or by the name the package's files import it as", q)
}

// relative is Foreign for a relative qualifier: the package LoadSources
// loaded from that directory, or an error that names the directory.
func relative(pkg *packages.Package, q string) (*types.Package, error) {
	dir := relDir(pkg, q)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("no directory %s (relative to the directory of package %s)", q, pkg.Name)
	}
	l := pkg.Imports[q]
	switch {
	case l == nil || (l.Types == nil && len(l.Errors) == 0):
		return nil, fmt.Errorf("directory %s holds no Go package this module can import", q)
	case len(l.Errors) > 0:
		// go list names the directory by its absolute path; the user named it q.
		return nil, fmt.Errorf("directory %s: %s", q, strings.ReplaceAll(l.Errors[0].Msg, dir, q))
	}
	return l.Types, nil
}

// importedAs is the package a file of pkg imports under the name q.
func importedAs(pkg *packages.Package, q string) *types.Package {
	byPath := map[string]*types.Package{}
	for _, p := range pkg.Types.Imports() {
		byPath[p.Path()] = p
	}
	for _, f := range pkg.Syntax {
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil || byPath[p] == nil {
				continue
			}
			name := byPath[p].Name()
			if spec.Name != nil {
				name = spec.Name.Name
			}
			if name == q {
				return byPath[p]
			}
		}
	}
	return nil
}

// importsOf lists the import paths of files.
func importsOf(files []*ast.File) []string {
	var out []string
	for _, f := range files {
		for _, spec := range f.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}
