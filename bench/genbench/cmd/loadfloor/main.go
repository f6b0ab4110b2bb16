// Command loadfloor is the floor of the generator benchmarks: it loads the
// package in the current directory (or -dir) with go/packages in exactly the
// mode rpcgen uses, and does nothing else but write the names the package
// declares to -out, so that the benchmark can check the load succeeded.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
)

// loadMode must stay the mode of the generator's load (generator/internal/load).
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes

func main() {
	dir := flag.String("dir", ".", "directory of the package to load")
	out := flag.String("out", "", "file to write the package's declared names to")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintf(os.Stderr, "loadfloor: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	pkgs, err := packages.Load(&packages.Config{Mode: loadMode, Dir: dir}, ".")
	if err != nil {
		return err
	}
	if len(pkgs) != 1 {
		return fmt.Errorf("found %d packages, want 1", len(pkgs))
	}
	pkg := pkgs[0]
	if len(pkg.Errors) > 0 || pkg.Types == nil {
		return fmt.Errorf("load %s: %v", pkg.PkgPath, pkg.Errors)
	}
	names := pkg.Types.Scope().Names()
	return os.WriteFile(out, []byte(pkg.PkgPath+"\n"+strings.Join(names, "\n")+"\n"), 0o644)
}
