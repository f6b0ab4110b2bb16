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
	"github.com/rpcgen/rpcgen/internal/suggest"
)

// Directive is one parsed //rpcgen:NAME line.
type Directive struct {
	Name string
	Pos  token.Pos
	Args []directiveArg
	// Next is the next line of a directive that may be given more than
	// once (repeatable), nil after the last.
	Next *Directive
}

// repeatable are the directives a doc comment may hold more than once.
var repeatable = map[string]bool{"example": true, "breaking": true, "icon": true, "env": true, "package": true}

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
		"service":   {"name": valueArg, "toolprefix": valueArg, "errors": valueArg, "scopes": valueArg},
		"schema":    {"dialect": boolArg, "defs": boolArg},
		"extension": {"id": valueArg, "settings": valueArg},
		"skills":    {"dir": valueArg},
		"breaking":  {"ignore": valueArg, "reason": valueArg},
		"icon":      iconKeys,
		"env":       {"name": valueArg, "description": valueArg, "required": boolArg, "secret": boolArg},
		"package":   {"npm": valueArg, "pypi": valueArg, "nuget": valueArg, "oci": valueArg},
	},
	"method": {
		"method": {"name": valueArg, "notification": boolArg, "idempotent": flagArg, "description": valueArg, "errors": valueArg},
		"tool": {
			"name": valueArg, "title": valueArg, "skip": boolArg,
			"readonly": boolArg, "destructive": boolArg, "idempotent": boolArg, "openworld": boolArg,
			"scopes": valueArg, "task": valueArg, "taskbegins": boolArg, "meta": valueArg,
		},
		"app": {
			"uri": valueArg, "file": valueArg, "name": valueArg, "title": valueArg, "description": valueArg,
			"connect": valueArg, "resources": valueArg, "frames": valueArg, "baseuri": valueArg,
			"permissions": valueArg, "domain": valueArg, "border": boolArg, "visibility": valueArg,
		},
		"schema":   {"dialect": boolArg, "defs": boolArg},
		"resource": {"uri": valueArg, "mime": valueArg, "name": valueArg, "title": valueArg, "meta": valueArg},
		"prompt":   {"name": valueArg, "title": valueArg, "meta": valueArg},
		"icon":     iconKeys,
		"complete": {"prompt": valueArg, "resource": valueArg, "arg": valueArg},
		"example":  {"name": valueArg, "params": valueArg, "result": valueArg, "error": valueArg, "data": valueArg},
		"breaking": {"ignore": valueArg, "reason": valueArg},
	},
	"type": {
		"schema": {"file": valueArg},
	},
}

// iconKeys are the keys of //rpcgen:icon (see descriptor.go).
var iconKeys = directiveSpec{"src": valueArg, "file": valueArg, "mime": valueArg, "sizes": valueArg, "theme": valueArg}

// ParseDirectives reads the //rpcgen: lines of a doc comment, reporting
// malformed ones, ones that do not belong at place ("interface", "method",
// or "type" for another type's declaration), unknown keys, and repeats.
func ParseDirectives(doc *ast.CommentGroup, place string, errs *diag.Collector) map[string]*Directive {
	out, _ := parseDirectives(doc, place, nil, errs)
	return out
}

// methodDirectives are the directives an interface's doc comment gives its
// methods (//rpcgen:tool Delete destructive), by method name and then by
// directive name.
type methodDirectives map[string]map[string]*Directive

// parseDirectives is ParseDirectives, and on an interface (methods not nil)
// it also reads the directives that name one of its methods by their first
// word, an exported method name: //rpcgen:tool Delete destructive. Such a
// directive takes a method's directives and keys. A name that is not in
// methods is reported with the nearest one.
func parseDirectives(doc *ast.CommentGroup, place string, methods []string, errs *diag.Collector) (map[string]*Directive, methodDirectives) {
	out := map[string]*Directive{}
	var byMethod methodDirectives
	if doc == nil {
		return out, nil
	}
	for _, c := range doc.List {
		d, ok := ast.ParseDirective(c.Slash, c.Text)
		if !ok || d.Tool != "rpcgen" {
			continue
		}
		args, err := splitDirectiveArgs(d.Args, d.ArgsPos)
		if _, known := knownDirectives[place][d.Name]; err != nil && (known || methods != nil) {
			errs.At(d.ArgsPos, "//rpcgen:%s: %v", d.Name, err)
			continue
		}
		into, at := out, place
		if methods != nil && len(args) > 0 && isMethodName(args[0]) {
			name := args[0]
			args = args[1:]
			if !slices.Contains(methods, name.Key) {
				errs.At(name.Pos, "//rpcgen:%s %s: the interface has no method %s%s", d.Name, name.Key, name.Key, suggest.DidYouMean(name.Key, methods))
				continue
			}
			if byMethod == nil {
				byMethod = methodDirectives{}
			}
			if byMethod[name.Key] == nil {
				byMethod[name.Key] = map[string]*Directive{}
			}
			into, at = byMethod[name.Key], "method"
		}
		spec, ok := knownDirectives[at][d.Name]
		if !ok {
			errs.At(d.Slash, "unknown directive //rpcgen:%s on %s (allowed here: %s)", d.Name, at, keysOf(knownDirectives[at], "//rpcgen:"))
			continue
		}
		nd := &Directive{Name: d.Name, Pos: d.Slash, Args: checkArgs(d.Name, args, spec, errs)}
		if prev, dup := into[d.Name]; dup {
			if !repeatable[d.Name] {
				errs.At(d.Slash, "duplicate directive //rpcgen:%s", d.Name)
				continue
			}
			for prev.Next != nil {
				prev = prev.Next
			}
			prev.Next = nd
			continue
		}
		into[d.Name] = nd
	}
	return out, byMethod
}

// isMethodName reports whether a directive's first argument names a method:
// a bare word that starts with an upper-case letter, as exported names do
// and directive keys never do.
func isMethodName(a directiveArg) bool {
	return !a.HasValue && a.Key != "" && a.Key[0] >= 'A' && a.Key[0] <= 'Z'
}

// checkArgs reports the arguments of //rpcgen:name that spec does not
// accept and returns the others.
func checkArgs(name string, args []directiveArg, spec directiveSpec, errs *diag.Collector) []directiveArg {
	seen := map[string]bool{}
	valid := args[:0]
	for _, a := range args {
		kind, known := spec[a.Key]
		switch {
		case !known:
			errs.At(a.Pos, "//rpcgen:%s: unknown key %q (valid: %s)", name, a.Key, keysOf(spec, ""))
		case seen[a.Key]:
			errs.At(a.Pos, "//rpcgen:%s: key %q given twice", name, a.Key)
		case kind == valueArg && !a.HasValue:
			errs.At(a.Pos, "//rpcgen:%s: key %q needs a value (%s=...)", name, a.Key, a.Key)
		case kind == flagArg && a.HasValue:
			errs.At(a.Pos, "//rpcgen:%s: key %q takes no value", name, a.Key)
		case kind == boolArg && a.HasValue && a.Value != "true" && a.Value != "false":
			errs.At(a.Pos, "//rpcgen:%s: key %q takes true or false, not %q", name, a.Key, a.Value)
		default:
			valid = append(valid, a)
		}
		seen[a.Key] = true
	}
	return valid
}

// merge returns d with the keys of over set over its own: what a
// directive naming a method says overrides, key by key, what the method's
// own directive says. skip (and notification) given as false removes the
// key; skip given as true leaves only skip, as a skipped tool has no other
// keys. Either may be nil.
func merge(d, over *Directive) *Directive {
	if over == nil {
		return d
	}
	if d == nil {
		return over
	}
	if v, _, ok := over.value("skip"); ok && v != "false" {
		return over
	}
	m := &Directive{Name: d.Name, Pos: over.Pos}
	for _, a := range d.Args {
		if _, _, given := over.value(a.Key); !given {
			m.Args = append(m.Args, a)
		}
	}
	m.Args = append(m.Args, over.Args...)
	return m
}

// mergeAll is merge for every directive of over.
func mergeAll(dirs map[string]*Directive, over map[string]*Directive) map[string]*Directive {
	if len(over) == 0 {
		return dirs
	}
	out := make(map[string]*Directive, len(dirs)+len(over))
	for k, d := range dirs {
		out[k] = d
	}
	for k, d := range over {
		out[k] = merge(out[k], d)
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
