package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rpcgen/rpcgen/internal/suggest"
)

// rejectSingleDashLong catches "-out x.go": pflag would read it as the
// shorthand -o with the value "ut", silently writing the wrong file.
func rejectSingleDashLong(fs *pflag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if fs.Lookup(name) != nil {
			return fmt.Errorf("flag %s has a single dash; did you mean --%s?", a, a[1:])
		}
	}
	return nil
}

// rejectUnknownLong reports a long flag rpcgen does not have, with the
// nearest one it has: pflag's own message names no alternative.
func rejectUnknownLong(fs *pflag.FlagSet, args []string) error {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok || name == "" {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if fs.Lookup(name) == nil {
			return fmt.Errorf("unknown flag: --%s%s", name, suggest.DidYouMean("--"+name, prefixed(names)))
		}
	}
	return nil
}

func prefixed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "--" + n
	}
	return out
}
