package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"
)

// versionFile holds the version constant, runtime.Version.
const versionFile = "runtime/version.go"

var versionDecl = regexp.MustCompile(`(?m)^const Version = "([^"]*)"$`)

// readVersion returns runtime.Version as the repository at repo declares it.
func readVersion(repo string) (string, error) {
	data, err := os.ReadFile(filepath.Join(repo, versionFile))
	if err != nil {
		return "", err
	}
	m := versionDecl.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: no line const Version = \"vX.Y.Z\"", versionFile)
	}
	return string(m[1]), nil
}

// setVersion makes runtime.Version version.
func setVersion(repo, version string) error {
	name := filepath.Join(repo, versionFile)
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if !versionDecl.Match(data) {
		return fmt.Errorf("%s: no line const Version = \"vX.Y.Z\"", versionFile)
	}
	data = versionDecl.ReplaceAll(data, []byte(`const Version = "`+version+`"`))
	return os.WriteFile(name, data, 0o644)
}

// guardDecl matches the declaration of a version guard, the constant that
// generated code refers to in the style of connect-go:
// IsAtLeastVersion0_2_0, true in the runtime of v0.2.0 and later (see
// runtime/rpcimpl/version.go).
var guardDecl = regexp.MustCompile(`\bIsAtLeastVersion(\d+)_(\d+)_(\d+)\s*=`)

// guardsBeyond lists the version guards that the root module's Go files
// (tests, test data and other modules aside) declare for a release later
// than version: code generated to need one would need a runtime that this
// release is not.
func guardsBeyond(repo, version string) ([]string, error) {
	seen := map[string]bool{}
	var beyond []string
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != repo && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if p != repo {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range guardDecl.FindAllSubmatch(data, -1) {
			name := strings.TrimRight(string(m[0]), " \t=")
			if seen[name] {
				continue
			}
			seen[name] = true
			var n [3]int
			for i := range n {
				n[i], _ = strconv.Atoi(string(m[i+1]))
			}
			if v := fmt.Sprintf("v%d.%d.%d", n[0], n[1], n[2]); semver.Compare(v, version) > 0 {
				rel, _ := filepath.Rel(repo, p)
				beyond = append(beyond, fmt.Sprintf("%s declares %s, for %s, later than %s", filepath.ToSlash(rel), name, v, version))
			}
		}
		return nil
	})
	return beyond, err
}
