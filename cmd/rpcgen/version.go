package main

import (
	"runtime/debug"
	"strings"
)

// version reports the module version rpcgen was built from (its own when
// installed with go install, the dependency's when run with go tool) and,
// where the build recorded one, the VCS revision: from the build settings
// of a build in a checkout, or from a pseudo-version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return describeBuild(bi)
}

// describeBuild is version's answer for bi.
func describeBuild(bi *debug.BuildInfo) string {
	var mod *debug.Module
	if bi.Main.Path == modulePath {
		mod = &bi.Main
	}
	for _, dep := range bi.Deps {
		if dep.Path == modulePath {
			mod = dep
		}
	}
	if mod == nil {
		return "(devel)"
	}
	v := mod.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when string
	dirty := false
	if mod == &bi.Main {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev == "" && mod.Replace != nil {
		rev = pseudoRevision(mod.Replace.Version)
	}
	if rev == "" {
		rev = pseudoRevision(v)
	}
	var extra []string
	if rev != "" {
		r := "revision " + rev
		if when != "" {
			r += " of " + when
		}
		if dirty {
			r += ", with uncommitted changes"
		}
		extra = append(extra, r)
	}
	if mod.Replace != nil {
		r := "replaced by " + mod.Replace.Path
		if v := mod.Replace.Version; v != "" && v != "(devel)" {
			r += " " + v
		}
		extra = append(extra, r)
	}
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, "; ") + ")"
	}
	return v
}

// pseudoRevision is the revision a pseudo-version names
// (v0.0.0-20260102150405-abcdef123456 -> abcdef123456), or "".
func pseudoRevision(v string) string {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 0 || len(v)-i-1 != 12 {
		return ""
	}
	rev := v[i+1:]
	if strings.Trim(rev, "0123456789abcdef") != "" || strings.Trim(rev, "0") == "" {
		return "" // not hex, or the placeholder of a replaced module: v0.0.0-00010101000000-000000000000
	}
	ts := v[:i]
	j := strings.LastIndexAny(ts, "-.")
	if j < 0 || len(ts)-j-1 != 14 || strings.Trim(ts[j+1:], "0123456789") != "" {
		return ""
	}
	return rev
}
