// Package load loads the package that holds the interfaces: its files
// parsed and type-checked against its imports' export data. The fast path
// lists the files and loads the imports in two go list runs at once,
// without compiling the package; whenever go list is not the authority
// (GOPACKAGESDRIVER, GOPATH mode, cgo, files go/build and go list disagree
// on) or anything goes wrong, packages.Load does the whole load instead.
package load

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// loadMode is the smallest go/packages mode that yields the package's types
// (dependencies come from export data) and its syntax, which holds the doc
// comments and directives.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes

// Load loads the package in dir. The file at outPath, if it exists, is
// replaced by an empty file of the same package: it is the output being
// regenerated, and a stale copy that no longer compiles must not stop us.
//
// Type errors are returned apart rather than failing the load: code that
// uses the generated identifiers does not compile before they exist, and
// that must not stop them from being generated. The caller reports the type
// errors only when the interfaces' own types are affected.
func Load(dir, outPath string, buildTags []string) (*packages.Package, diag.List, error) {
	return LoadSources(dir, outPath, buildTags, nil, nil)
}

// LoadSources is loadPackage keeping, in srcs when not nil, the
// bytes of every file it parsed (the output file as the empty file it reads),
// and keeping what go list says of the package's files in lists when not
// nil (see listcache.go).
//
// foreign are the package parts of qualified interface names (see
// SplitQualified): those that are not the package's imports are loaded
// from export data with them, at the same time, into the package's
// Imports, where Foreign finds them. Their doc comments and directives are
// read from their source by the model, which parses only the files that
// declare the interfaces.
func LoadSources(dir, outPath string, buildTags []string, srcs *Sources, lists ListStore, foreign ...string) (*packages.Package, diag.List, error) {
	_, pkgName, _ := readHead(token.NewFileSet(), outPath)
	parse := parseKeeping(outPath, pkgName, srcs)
	pkg, ok := loadSplit(dir, outPath, buildTags, lists, parse, foreign)
	if !ok {
		srcs.reset()
		var err error
		if pkg, err = loadWhole(dir, buildTags, parse); err != nil {
			return nil, nil, err
		}
		if pkg.Types != nil {
			if err := loadForeign(pkg, pkg.Fset, dir, tagFlags(buildTags), toLoad(foreign, importsOf(pkg.Syntax))); err != nil {
				return nil, nil, err
			}
		}
	}
	// go list reports a compile failure once more as a list error; prefer
	// the type checker's positioned report when there is one.
	hasTypeErrors := slices.ContainsFunc(pkg.Errors, func(e packages.Error) bool { return e.Kind == packages.TypeError })
	// go list compiles the package for export data with the stale output
	// file as it is on disk; the type check of the syntax we parsed, with
	// that file emptied, is what counts, so the compiler's report is noise.
	compilerOutput := "# " + pkg.PkgPath + "\n"
	var fatal, typeErrs diag.List
	for _, e := range pkg.Errors {
		pos := parsePosition(e.Pos)
		switch {
		case e.Kind == packages.TypeError:
			typeErrs = append(typeErrs, &diag.Error{Pos: pos, Msg: e.Msg})
		case e.Kind == packages.ListError && (hasTypeErrors || strings.HasPrefix(e.Msg, compilerOutput)):
		default:
			fatal = append(fatal, &diag.Error{Pos: pos, Msg: e.Msg})
		}
	}
	if len(fatal) > 0 || pkg.Types == nil {
		return nil, nil, append(fatal, typeErrs...)
	}
	return pkg, typeErrs, nil
}

// loadWhole loads the package in dir with packages.Load in loadMode,
// parsing its files with parse.
func loadWhole(dir string, buildTags []string, parse func(*token.FileSet, string, []byte) (*ast.File, error)) (*packages.Package, error) {
	// ParseFile, not an Overlay: with one, go/packages type-checks every
	// dependency from source instead of reading export data, several times
	// slower.
	cfg := &packages.Config{Mode: loadMode, Dir: dir, Tests: false, ParseFile: parse, BuildFlags: tagFlags(buildTags)}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, fmt.Errorf("load package in %s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		// go/packages drops go list's reason here; point the user at it.
		return nil, fmt.Errorf("load package in %s: found %d packages, want 1 (run 'go list' there to see why)", dir, len(pkgs))
	}
	return pkgs[0], nil
}

// tagFlags are the go command's flags for buildTags.
func tagFlags(buildTags []string) []string {
	if len(buildTags) == 0 {
		return nil
	}
	return []string{"-tags=" + strings.Join(buildTags, ",")}
}

// parseKeeping is a packages.Config.ParseFile that parses every file as
// go/packages does, except the output file, which it reads as an empty file
// of package pkgName when pkgName is not "" (the output exists), and that
// keeps each file's bytes in srcs when srcs is not nil.
func parseKeeping(outPath, pkgName string, srcs *Sources) func(*token.FileSet, string, []byte) (*ast.File, error) {
	out, _ := os.Stat(outPath)
	return func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		if pkgName != "" && IsOutput(filename, outPath, out) {
			src = fmt.Appendf(nil, "package %s\n", pkgName)
		}
		srcs.put(filename, src)
		return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
	}
}

// Sources holds the bytes of parsed files by name; go/packages parses in
// parallel.
type Sources struct {
	Mu sync.Mutex
	M  map[string][]byte
}

// reset forgets every file, for a load that starts over.
func (s *Sources) reset() {
	if s == nil {
		return
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.M = nil
}

func (s *Sources) put(name string, src []byte) {
	if s == nil {
		return
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if s.M == nil {
		s.M = map[string][]byte{}
	}
	s.M[name] = src
}

// IsOutput reports whether filename names the output file, also through a
// different spelling of its directory (a symbolic link).
func IsOutput(filename, outPath string, out os.FileInfo) bool {
	if filepath.Clean(filename) == filepath.Clean(outPath) {
		return true
	}
	if out == nil || filepath.Base(filename) != filepath.Base(outPath) {
		return false
	}
	fi, err := os.Stat(filename)
	return err == nil && os.SameFile(fi, out)
}

// parsePosition parses the "file:line:col" form go/packages reports.
func parsePosition(s string) token.Position {
	var p token.Position
	rest := s
	nums := []*int{&p.Column, &p.Line}
	for _, n := range nums {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			break
		}
		v, err := strconv.Atoi(rest[i+1:])
		if err != nil {
			break
		}
		*n = v
		rest = rest[:i]
	}
	if p.Line == 0 && p.Column != 0 { // only "file:line"
		p.Line, p.Column = p.Column, 0
	}
	p.Filename = rest
	return p
}
