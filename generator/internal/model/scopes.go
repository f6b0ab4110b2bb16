package model

import (
	"slices"
	"strings"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// parseScopes reads the scopes= key of d (OAuth scopes, separated by commas
// or spaces: scopes=notes.read,notes.write or scopes="notes.read
// notes.write") after base, each once; it reports a scope that is not an
// OAuth scope token (RFC 6749 §3.3) and a key that names none.
func parseScopes(d *Directive, base []string, errs *diag.Collector) []string {
	v, pos, ok := d.value("scopes")
	if !ok {
		return base
	}
	out := slices.Clone(base)
	words := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(words) == 0 {
		errs.At(pos, "scopes=%q names no scope", v)
	}
	for _, w := range words {
		if !validScope(w) {
			errs.At(pos, "scope %q: OAuth scopes are printable ASCII without spaces, '\"' or '\\'", w)
			continue
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// validScope reports whether s is an OAuth scope token: %x21 / %x23-5B /
// %x5D-7E (RFC 6749 §3.3).
func validScope(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}
