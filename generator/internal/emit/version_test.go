package emit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// guardName is how runtime/rpcimpl names a version guard: by release.
var guardName = regexp.MustCompile(`^IsAtLeastVersion(\d+)_(\d+)_(\d+)$`)

// TestVersionGuard reads runtime/rpcimpl's version.go and checks that it
// declares the guards and nothing else, each a documented constant true
// named for a release, and that VersionGuard, the one every generated file
// references, is the newest: a release that adds a guard and forgets the
// generator (or the reverse) fails here.
func TestVersionGuard(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../../runtime/rpcimpl/version.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	type guard struct {
		name    string
		version [3]int
	}
	var guards []guard
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			t.Fatalf("%s: version.go declares something other than a guard", fset.Position(decl.Pos()))
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				m := guardName.FindStringSubmatch(id.Name)
				if m == nil {
					t.Errorf("%s: %s is not named IsAtLeastVersionX_Y_Z", fset.Position(id.Pos()), id.Name)
					continue
				}
				if len(vs.Values) <= i || !isTrue(vs.Values[i]) {
					t.Errorf("%s: %s is not the constant true", fset.Position(id.Pos()), id.Name)
				}
				if vs.Doc == nil && gd.Doc == nil {
					t.Errorf("%s: %s has no doc comment", fset.Position(id.Pos()), id.Name)
				}
				var g guard
				g.name = id.Name
				for j := range 3 {
					g.version[j], _ = strconv.Atoi(m[j+1])
				}
				guards = append(guards, g)
			}
		}
	}
	if len(guards) == 0 {
		t.Fatal("version.go declares no guard")
	}
	newest := slices.MaxFunc(guards, func(a, b guard) int {
		return slices.Compare(a.version[:], b.version[:])
	})
	if VersionGuard != newest.name {
		t.Errorf("generated files reference %s; the newest guard in runtime/rpcimpl is %s", VersionGuard, newest.name)
	}
}

func isTrue(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "true"
}
