package model

import (
	"github.com/rpcgen/rpcgen/generator/internal/diag"
	"github.com/rpcgen/rpcgen/generator/internal/serverdoc"
)

// EnvVar is an environment variable the server reads, from an
// //rpcgen:env line, for the packages of a server.json.
type EnvVar struct {
	Name, Description string
	Required, Secret  bool
}

// serverInfo reads an interface's //rpcgen:package lines (npm=, pypi=,
// nuget= or oci=, one each) and //rpcgen:env lines (name=, description=,
// required, secret): what a server.json says of the packages that run
// the server and the variables they read, as --package and --env do.
// Each problem is reported where it stands.
func serverInfo(pkgs, env *Directive, errs *diag.Collector) ([]string, []EnvVar) {
	var packages []string
	for d := pkgs; d != nil; d = d.Next {
		if len(d.Args) != 1 {
			errs.At(d.Pos, "//rpcgen:package: give one package, TYPE=IDENTIFIER (npm=, pypi=, nuget= or oci=)")
			continue
		}
		a := d.Args[0]
		if problem := serverdoc.PackageProblem(a.Key, a.Value); problem != "" {
			errs.At(a.Pos, "//rpcgen:package %s=%s: %s", a.Key, a.Value, problem)
			continue
		}
		packages = append(packages, a.Key+":"+a.Value)
	}
	var vars []EnvVar
	seen := map[string]bool{}
	for d := env; d != nil; d = d.Next {
		name, pos, _ := d.value("name")
		if !pos.IsValid() {
			pos = d.Pos
		}
		switch {
		case !serverdoc.ValidEnvName(name):
			errs.At(pos, "//rpcgen:env: name=%q: want the variable's name, of letters, digits and _", name)
			continue
		case seen[name]:
			errs.At(pos, "//rpcgen:env: %s is declared twice", name)
			continue
		}
		seen[name] = true
		desc, _, _ := d.value("description")
		v := EnvVar{Name: name, Description: desc}
		if f := d.flag("required"); f != nil {
			v.Required = *f
		}
		if f := d.flag("secret"); f != nil {
			v.Secret = *f
		}
		vars = append(vars, v)
	}
	return packages, vars
}
