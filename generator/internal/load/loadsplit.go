package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/tools/go/packages"
)

// loadSplit loads the package in dir as loadMode would, without making go
// list compile the package itself.
//
// packages.Load in loadMode runs go list -export over the package and its
// dependencies, and so compiles the package for export data it never reads:
// it type-checks the package from source. After the package is edited, that
// compile is most of the load (two thirds of it for a package of a thousand
// methods), and in place it compiles the stale output too. loadSplit instead
// lists the package's files without its dependencies (go list -find), loads
// the types of the packages its files import from export data in a second go
// list run at the same time, and type-checks the parsed files against them
// with the same go/types configuration go/packages uses.
//
// The imports are predicted before go list answers, from the files go/build
// selects, so that both runs start at once; the result counts only when go
// list names the same files. It reports false, having loaded nothing it
// keeps, for anything it does not handle exactly as packages.Load does: go
// list, parse or dependency errors, cgo, a file set go/build and go list
// disagree on. The caller then uses packages.Load, which reports what went
// wrong in its own words.
//
// Listing the package costs a fourth go list run (packages.Load runs three),
// which competes with the others for the CPU: 30 ms on two cores, 200 ms
// for a module with many requirements, whose module graph go list -find
// loads. The list cache (listcache.go) answers for it unless the package's
// file set, build constraints, module or go command changed.
func loadSplit(dir, outPath string, buildTags []string, lists ListStore, parse func(*token.FileSet, string, []byte) (*ast.File, error), foreign []string) (*packages.Package, bool) {
	if !goListDecides() {
		return nil, false
	}
	files, imports, ok := predictFiles(dir, outPath, buildTags)
	if !ok {
		return nil, false
	}
	listKey, listed, outFile := cachedListing(dir, buildTags, files, lists)
	extra := toLoad(foreign, imports)
	imports = append(imports, extra...)
	if len(imports) == 0 {
		// The load gives the sizes of types too.
		imports = []string{"unsafe"}
	}
	flags := tagFlags(buildTags)
	fset := token.NewFileSet()
	var (
		wg          sync.WaitGroup
		root        *listedPackage
		deps        []*packages.Package
		rErr, dErr  error
		syntax      = make([]*ast.File, len(files))
		parseFailed bool
	)
	if listed != nil {
		root = listed
	} else {
		wg.Go(func() { root, rErr = listFiles(dir, flags) })
	}
	wg.Go(func() {
		deps, dErr = packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedTypesSizes, Dir: dir, BuildFlags: flags, Fset: fset}, imports...)
	})
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.path
		var err error
		if syntax[i], err = parse(fset, f.path, f.src); err != nil {
			parseFailed = true
		}
	}
	wg.Wait()
	if parseFailed || rErr != nil || dErr != nil || len(deps) == 0 {
		return nil, false
	}
	pkg := &packages.Package{ID: root.ImportPath, Name: root.Name, PkgPath: root.ImportPath, Dir: root.Dir, GoFiles: root.files()}
	if !slices.Equal(pkg.GoFiles, paths) {
		return nil, false
	}
	if listed == nil && listKey != "" {
		entry := root
		if outFile != "" {
			entry = root.withoutGoFile(outFile)
		}
		storeListEntry(lists, listKey, entry)
	}
	if !typeCheck(pkg, fset, syntax, deps, root.goVersion) {
		return nil, false
	}
	keepForeign(pkg, deps, extra)
	return pkg, true
}

// typeCheck type-checks the files of pkg, parsed into syntax, against the
// export data of its dependencies deps, with the settings packages.Load
// uses, keeping the type errors in pkg.Errors. It reports false when a
// dependency is missing or the checker failed without a type error.
func typeCheck(pkg *packages.Package, fset *token.FileSet, syntax []*ast.File, deps []*packages.Package, goVersion string) bool {
	byPath := make(map[string]*packages.Package, len(deps))
	for _, d := range deps {
		byPath[d.ID] = d
	}
	missing := false
	importer := importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		d := byPath[path]
		if d == nil || len(d.Errors) > 0 || d.Types == nil || !d.Types.Complete() {
			missing = true
			return nil, os.ErrNotExist
		}
		return d.Types, nil
	})
	conf := &types.Config{Importer: importer, Sizes: deps[0].TypesSizes}
	conf.GoVersion = goVersion
	conf.Error = func(err error) {
		if te, ok := err.(types.Error); ok {
			pkg.Errors = append(pkg.Errors, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
		}
	}
	pkg.Types = types.NewPackage(pkg.PkgPath, pkg.Name)
	pkg.Fset = fset
	pkg.Syntax = syntax
	typErr := types.NewChecker(conf, fset, pkg.Types, nil).Files(syntax)
	return !missing && (typErr == nil || len(pkg.Errors) > 0)
}

// cachedListing looks up in lists what go list said of the package whose
// files predictFiles found, and returns the entry's key ("" when there is
// none to be had), the entry when there is one, and the name of rpcgen's
// output among the files, if it is there.
//
// The list cache describes the package without rpcgen's own output, so
// that the run that writes the output and the runs after it share an
// entry; an output that says it is rpcgen's, and nothing else before its
// package clause, is in go list's answer exactly when it exists.
func cachedListing(dir string, buildTags []string, files []predictedFile, lists ListStore) (key string, listed *listedPackage, outFile string) {
	if lists == nil {
		return "", nil, ""
	}
	keyFiles, outName := files, ""
	for i, f := range files {
		if name, ok := standardOutput(f); ok {
			keyFiles = slices.Delete(slices.Clone(files), i, i+1)
			outName, outFile = name, filepath.Base(f.path)
			break
		}
	}
	key, ok := listFingerprint(dir, buildTags, keyFiles)
	if !ok {
		return "", nil, outFile
	}
	listed = readListEntry(lists, key)
	if listed != nil && outFile != "" {
		if listed.Name == outName {
			listed = listed.withGoFile(outFile)
		} else {
			listed = nil // go list will say what is wrong
		}
	}
	return key, listed, outFile
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// withGoFile returns p with name among its GoFiles, in order.
func (p *listedPackage) withGoFile(name string) *listedPackage {
	c := *p
	i, found := slices.BinarySearch(p.GoFiles, name)
	if !found {
		c.GoFiles = slices.Insert(slices.Clone(p.GoFiles), i, name)
	}
	return &c
}

// withoutGoFile returns p without name among its GoFiles.
func (p *listedPackage) withoutGoFile(name string) *listedPackage {
	c := *p
	c.GoFiles = slices.DeleteFunc(slices.Clone(p.GoFiles), func(n string) bool { return n == name })
	return &c
}

// outputHead is how rpcgen's output begins, up to its package's name.
const outputHead = "// Code generated by rpcgen. DO NOT EDIT.\n\npackage "

// standardOutput reports whether f is rpcgen's output with nothing before
// its package clause but the header rpcgen writes, and its package's name.
func standardOutput(f predictedFile) (string, bool) {
	name, ok := strings.CutPrefix(string(f.head), outputHead)
	return name, ok && f.src == nil && token.IsIdentifier(name)
}

// listRuns counts listFiles' go list runs, for tests of the list cache.
var listRuns atomic.Int64

// listedPackage is what go list -find tells of a package.
type listedPackage struct {
	Name, ImportPath, Dir string
	GoFiles, CgoFiles     []string
	Module                *struct{ GoVersion string }
	Error                 *struct{ Err string }

	goVersion string // for types.Config, as go/packages sets it
}

// files returns the package's Go files as go/packages lists them: GoFiles,
// then CgoFiles, joined to Dir.
func (p *listedPackage) files() []string {
	var files []string
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
		files = append(files, filepath.Join(p.Dir, name))
	}
	return files
}

// listFiles lists the package in dir with go list -find, which looks at
// no dependency, as packages.Load does in a mode that needs only names and
// files, but without asking the go command its version first.
func listFiles(dir string, flags []string) (*listedPackage, error) {
	listRuns.Add(1)
	args := append([]string{"list", "-e", "-find", "-json=Name,ImportPath,Dir,GoFiles,CgoFiles,Module,Error", "-buildvcs=false", "-pgo=off"}, flags...)
	cmd := exec.Command("go", append(args, "--", ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PWD="+dir)
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var p listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&p); err != nil {
		return nil, err
	}
	if dec.More() || p.Error != nil || p.Name == "" || !filepath.IsAbs(p.Dir) {
		return nil, errors.New("go list: not one package without errors")
	}
	if p.Module == nil {
		// GOPATH mode, where an import may name a vendored copy that a
		// pattern of the same path does not: packages.Load handles it.
		return nil, errors.New("go list: not in a module")
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		p.goVersion = "go" + p.Module.GoVersion
	}
	return &p, nil
}

// predictedFile is a Go file of the package as predictFiles sees it.
type predictedFile struct {
	path string
	src  []byte // nil for the output file, which is read as empty
	// head is the file up to the end of its package clause: the build
	// constraints and the package name, all go list -find looks at.
	head []byte
}

// goListDecides reports whether go list, run on the files on disk, is what
// packages.Load would ask: not when a GOPACKAGESDRIVER (named in the
// environment, or a gopackagesdriver in PATH, as go/packages finds one)
// answers instead, and not when GOFLAGS gives go list an overlay or another
// go.mod file, which the split load's own reading of the files and the
// list cache's key do not follow.
func goListDecides() bool {
	switch driver := os.Getenv("GOPACKAGESDRIVER"); driver {
	case "off":
	case "":
		if _, err := exec.LookPath("gopackagesdriver"); err == nil {
			return false
		}
	default:
		return false
	}
	flags := os.Getenv("GOFLAGS")
	return !strings.Contains(flags, "-overlay") && !strings.Contains(flags, "-modfile")
}

// predictFiles returns the Go files of the package in dir that go/build
// selects with buildTags, sorted as go list sorts them, and the paths their
// import declarations name, the output file's left out (it is read as
// empty). It reports false for a file that imports "C" or whose imports do
// not parse.
func predictFiles(dir, outPath string, buildTags []string) (files []predictedFile, imports []string, ok bool) {
	ctx := build.Default
	ctx.BuildTags = buildTags
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, false
	}
	out, _ := os.Stat(outPath)
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		match, err := ctx.MatchFile(dir, name)
		if err != nil {
			return nil, nil, false
		}
		if !match {
			continue
		}
		path := filepath.Join(dir, name)
		if IsOutput(path, outPath, out) {
			head, _, ok := readHead(fset, path)
			if !ok {
				return nil, nil, false
			}
			files = append(files, predictedFile{path: path, head: head})
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, false
		}
		f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
		if err != nil {
			return nil, nil, false
		}
		files = append(files, predictedFile{path: path, src: src, head: src[:fset.Position(f.Name.End()).Offset]})
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil || p == "C" {
				return nil, nil, false
			}
			if p != "unsafe" && !seen[p] {
				seen[p] = true
				imports = append(imports, p)
			}
		}
	}
	slices.Sort(imports)
	return files, imports, true
}

// readHead returns the file at path up to the end of its package clause,
// and the package's name, reading only as much of the file as that takes:
// the output file can be megabytes long.
func readHead(fset *token.FileSet, path string) (head []byte, name string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", false
	}
	defer f.Close()
	buf := make([]byte, 16<<10)
	n, err := io.ReadFull(f, buf)
	buf = buf[:n]
	if err == nil { // there may be more: read it all if the clause is not in the start
		if ast, perr := parser.ParseFile(fset, path, buf, parser.PackageClauseOnly); perr == nil {
			return buf[:fset.Position(ast.Name.End()).Offset], ast.Name.Name, true
		}
		rest, err := io.ReadAll(f)
		if err != nil {
			return nil, "", false
		}
		buf = append(buf, rest...)
	}
	ast, err := parser.ParseFile(fset, path, buf, parser.PackageClauseOnly)
	if err != nil {
		return nil, "", false
	}
	return buf[:fset.Position(ast.Name.End()).Offset], ast.Name.Name, true
}
