package model

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/rpcgen/rpcgen/generator/internal/diag"
)

// Directive is one parsed //rpcgen:NAME line.
type Directive struct {
	Name string
	Pos  token.Pos
	Args []directiveArg
}

// directiveArg is a bare flag ("notification") or a key=value pair
// ("name=notes", `title="Add a note"`).
type directiveArg struct {
	Key      string
	Value    string
	HasValue bool
	Pos      token.Pos
}

// argKind says whether a directive key takes a value.
type argKind int

const (
	flagArg  argKind = iota // a bare word: "notification"
	valueArg                // key=value: "name=notes"
	boolArg                 // a bare word meaning true, or key=true / key=false
)

// directiveSpec lists the keys a directive accepts and what each takes.
type directiveSpec map[string]argKind

// knownDirectives maps where a directive may stand to the directives allowed there.
var knownDirectives = map[string]map[string]directiveSpec{
	"interface": {
		"service": {"name": valueArg, "toolprefix": valueArg},
		"schema":  {"dialect": boolArg, "defs": boolArg},
	},
	"method": {
		"method": {"name": valueArg, "notification": flagArg, "idempotent": flagArg},
		"tool": {
			"name": valueArg, "title": valueArg, "skip": flagArg,
			"readonly": boolArg, "destructive": boolArg, "idempotent": boolArg, "openworld": boolArg,
		},
		"schema":   {"dialect": boolArg, "defs": boolArg},
		"resource": {"uri": valueArg, "mime": valueArg, "name": valueArg, "title": valueArg},
		"prompt":   {"name": valueArg, "title": valueArg},
		"complete": {"prompt": valueArg, "resource": valueArg, "arg": valueArg},
	},
	"type": {
		"schema": {"file": valueArg},
	},
}

// ParseDirectives reads the //rpcgen: lines of a doc comment, reporting
// malformed ones, ones that do not belong at place ("interface", "method",
// or "type" for another type's declaration), unknown keys, and repeats.
func ParseDirectives(doc *ast.CommentGroup, place string, errs *diag.Collector) map[string]*Directive {
	out := map[string]*Directive{}
	if doc == nil {
		return out
	}
	allowed := knownDirectives[place]
	for _, c := range doc.List {
		d, ok := ast.ParseDirective(c.Slash, c.Text)
		if !ok || d.Tool != "rpcgen" {
			continue
		}
		spec, ok := allowed[d.Name]
		if !ok {
			errs.At(d.Slash, "unknown directive //rpcgen:%s on %s (allowed here: %s)", d.Name, place, keysOf(allowed, "//rpcgen:"))
			continue
		}
		if _, dup := out[d.Name]; dup {
			errs.At(d.Slash, "duplicate directive //rpcgen:%s", d.Name)
			continue
		}
		args, err := splitDirectiveArgs(d.Args, d.ArgsPos)
		if err != nil {
			errs.At(d.ArgsPos, "//rpcgen:%s: %v", d.Name, err)
			continue
		}
		seen := map[string]bool{}
		valid := args[:0]
		for _, a := range args {
			kind, known := spec[a.Key]
			switch {
			case !known:
				errs.At(a.Pos, "//rpcgen:%s: unknown key %q (valid: %s)", d.Name, a.Key, keysOf(spec, ""))
			case seen[a.Key]:
				errs.At(a.Pos, "//rpcgen:%s: key %q given twice", d.Name, a.Key)
			case kind == valueArg && !a.HasValue:
				errs.At(a.Pos, "//rpcgen:%s: key %q needs a value (%s=...)", d.Name, a.Key, a.Key)
			case kind == flagArg && a.HasValue:
				errs.At(a.Pos, "//rpcgen:%s: key %q takes no value", d.Name, a.Key)
			case kind == boolArg && a.HasValue && a.Value != "true" && a.Value != "false":
				errs.At(a.Pos, "//rpcgen:%s: key %q takes true or false, not %q", d.Name, a.Key, a.Value)
			default:
				valid = append(valid, a)
			}
			seen[a.Key] = true
		}
		out[d.Name] = &Directive{Name: d.Name, Pos: d.Slash, Args: valid}
	}
	return out
}

// value returns the value of key and whether the key was given.
func (d *Directive) value(key string) (string, token.Pos, bool) {
	if d == nil {
		return "", token.NoPos, false
	}
	for _, a := range d.Args {
		if a.Key == key {
			return a.Value, a.Pos, true
		}
	}
	return "", token.NoPos, false
}

// flag returns the value of a boolean key: nil when absent, true for a bare
// word or key=true, false for key=false.
func (d *Directive) flag(key string) *bool {
	v, _, ok := d.value(key)
	if !ok {
		return nil
	}
	b := v != "false"
	return &b
}

// splitDirectiveArgs splits the text after //rpcgen:NAME into space-separated
// key or key=value words, where a value may be a Go string literal.
func splitDirectiveArgs(s string, pos token.Pos) ([]directiveArg, error) {
	var args []directiveArg
	i := 0
	for i < len(s) {
		r := rune(s[i])
		if unicode.IsSpace(r) {
			i++
			continue
		}
		start := i
		for i < len(s) && s[i] != '=' && !unicode.IsSpace(rune(s[i])) {
			i++
		}
		a := directiveArg{Key: s[start:i], Pos: pos + token.Pos(start)}
		if !isDirectiveKey(a.Key) {
			return nil, fmt.Errorf("malformed argument %q: want key or key=value", s[start:i])
		}
		if i < len(s) && s[i] == '=' {
			i++
			a.HasValue = true
			if i < len(s) && (s[i] == '"' || s[i] == '`') {
				lit, err := quotedPrefix(s[i:])
				if err != nil {
					return nil, fmt.Errorf("value of %s: %v", a.Key, err)
				}
				a.Value, _ = strconv.Unquote(lit)
				i += len(lit)
				if i < len(s) && !unicode.IsSpace(rune(s[i])) {
					return nil, fmt.Errorf("value of %s: unexpected %q after the closing quote", a.Key, s[i:])
				}
			} else {
				vstart := i
				for i < len(s) && !unicode.IsSpace(rune(s[i])) {
					i++
				}
				a.Value = s[vstart:i]
			}
		}
		args = append(args, a)
	}
	return args, nil
}

func quotedPrefix(s string) (string, error) {
	lit, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", fmt.Errorf("unterminated or malformed quoted string %s", s)
	}
	return lit, nil
}

func isDirectiveKey(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func keysOf[V any](m map[string]V, prefix string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, prefix+k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
