package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"

	"golang.org/x/tools/go/packages"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/emit"
	"github.com/rpcgen/rpcgen/generator/internal/model"
	"github.com/rpcgen/rpcgen/generator/internal/schema"
)

// partialGoFile returns the Go file of services, what the model built of a
// package with problems (a method with one is left out), for the names it
// declares; nil when it cannot be written. Its own problems are those
// emit.Check reports, and a feature left out may leave another that refers
// to it dangling, which the emitter does not expect: such a run reports the
// model's problems alone.
func partialGoFile(pkg *packages.Package, services []*model.Service, deep bool) (src []byte) {
	defer func() {
		if recover() != nil {
			src = nil
		}
	}()
	sg := schema.NewBuilder(pkg, &diag.Collector{Fset: pkg.Fset})
	if len(services) > 0 {
		sg.TypeSchemas = services[0].TypeSchemas
	}
	sg.Deep = deep
	src, _, err := emit.GoFile(pkg.PkgPath, pkg.Name, services, sg, nil, nil)
	if err != nil {
		return nil
	}
	return src
}

// checkCollisions reports each declaration of the package that the
// generated Go file src (to be written to out) declares too, at the
// package's declaration: the package would not compile with both. The
// package was loaded with the output file empty, so what its scope holds
// is the user's.
func checkCollisions(pkg *packages.Package, src []byte, out string, errs *diag.Collector) {
	f, err := parser.ParseFile(token.NewFileSet(), out, src, parser.SkipObjectResolution)
	if err != nil {
		return // gofmt'd output of the generator: it parses
	}
	var names []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if name == "_" || name == "init" {
			continue
		}
		obj := pkg.Types.Scope().Lookup(name)
		if obj == nil || !obj.Pos().IsValid() {
			continue
		}
		errs.At(obj.Pos(), "%s is declared here and by the code rpcgen generates into %s: rename this declaration, or the interface whose name the generated names start with", name, filepath.Base(out))
	}
}
