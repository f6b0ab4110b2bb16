package mcpserver

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime"
)

// URITemplate is a parsed resource URI template: RFC 6570 level 1, where the
// only expressions are simple {var} ones, such as "notes://{id}" or
// "file:///docs/{name}.md".
type URITemplate struct {
	raw  string
	vars []string
	// lits are the literal texts around the variables, len(vars)+1 of them, as
	// runes: the template matches lits[0] vars[0] lits[1] ... vars[n-1] lits[n].
	lits [][]rune
}

// ParseURITemplate parses s, a URI template of level 1: literal text and
// {var} expressions, a var being letters, digits and '_' (with '.' between
// them). It refuses other expressions ({+var}, {var*}, {a,b}), a variable
// used twice, two expressions with no literal text between them (whose
// values could not be told apart), and a template that does not make an
// absolute URI.
func ParseURITemplate(s string) (*URITemplate, error) {
	t := &URITemplate{raw: s}
	var lit strings.Builder    // the literal text since the last expression
	var sample strings.Builder // s with each variable replaced, to check the URI
	lastVar := -1              // index in s just after the last expression
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("uri template %q: unclosed {", s)
			}
			name := s[i+1 : i+end]
			if !validVarName(name) {
				return nil, fmt.Errorf("uri template %q: expression {%s} is not a simple {var} (level 1)", s, name)
			}
			if lastVar == i {
				return nil, fmt.Errorf("uri template %q: {%s} follows another expression with nothing between them", s, name)
			}
			for _, v := range t.vars {
				if v == name {
					return nil, fmt.Errorf("uri template %q: variable %q is used twice", s, name)
				}
			}
			t.vars = append(t.vars, name)
			t.lits = append(t.lits, []rune(lit.String()))
			lit.Reset()
			sample.WriteByte('x')
			i += end + 1
			lastVar = i
		case c == '}':
			return nil, fmt.Errorf("uri template %q: } without {", s)
		case c <= ' ' || c == 0x7f:
			return nil, fmt.Errorf("uri template %q: control character or space at offset %d", s, i)
		default:
			j := i
			for j < len(s) && s[j] != '{' && s[j] != '}' && s[j] > ' ' && s[j] != 0x7f {
				j++
			}
			lit.WriteString(s[i:j])
			sample.WriteString(s[i:j])
			i = j
		}
	}
	t.lits = append(t.lits, []rune(lit.String()))
	if err := checkURI(sample.String()); err != nil {
		return nil, fmt.Errorf("uri template %q: %s", s, err.Message)
	}
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("uri template %q: invalid UTF-8", s)
	}
	return t, nil
}

func validVarName(name string) bool {
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// String returns the template as it was parsed.
func (t *URITemplate) String() string { return t.raw }

// Vars returns the template's variable names, in order.
func (t *URITemplate) Vars() []string { return append([]string(nil), t.vars...) }

// Match reports whether uri is one of the template's URIs and returns the
// values of its variables, percent-decoded. Each variable matches one or more
// characters other than '/'. A value must decode to text: one holding a
// control character (C0, DEL or C1, as "%0a" or "%7f" give) or invalid UTF-8
// ("%ff", "%c0%ae") does not match, so no handler ever sees one.
func (t *URITemplate) Match(uri string) (map[string]string, bool) {
	vars, bad := t.matchVars(uri)
	if vars == nil || bad != "" {
		return nil, false
	}
	return vars, true
}

// matchVars matches uri as Match does; vars is nil when uri does not match
// the template, and bad names a variable whose value does not decode to text.
func (t *URITemplate) matchVars(uri string) (vars map[string]string, bad string) {
	spans, ok := t.match(uri)
	if !ok {
		return nil, ""
	}
	vars = make(map[string]string, len(t.vars))
	for i, name := range t.vars {
		v, err := url.PathUnescape(uri[spans[2*i]:spans[2*i+1]])
		if err != nil {
			return nil, ""
		}
		if bad == "" && !isText(v) {
			bad = name
		}
		vars[name] = v
	}
	return vars, bad
}

// isText reports whether s is valid UTF-8 free of control characters.
func isText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || 0x7f <= r && r <= 0x9f {
			return false
		}
	}
	return true
}

// match matches uri against the template as the regular expression
// ^lits[0]([^/]+?)lits[1]...([^/]+?)lits[n]$ would, leftmost-first: each
// variable takes the fewest runes with which the rest can still match. It
// returns the byte offsets at which each variable's value starts and ends. Like
// package regexp, it works on the runes of uri, an invalid UTF-8 byte being
// one rune, U+FFFD; its time and memory are linear in len(uri) for each
// variable.
func (t *URITemplate) match(uri string) ([]int, bool) {
	runes := make([]rune, 0, len(uri))
	offs := make([]int, 0, len(uri)+1) // offs[j] is the byte offset of runes[j]
	for i, r := range uri {
		runes = append(runes, r)
		offs = append(offs, i)
	}
	offs = append(offs, len(uri))
	n := len(runes)
	hasLit := func(j int, lit []rune) bool {
		if n-j < len(lit) {
			return false
		}
		for k, r := range lit {
			if runes[j+k] != r {
				return false
			}
		}
		return true
	}
	k := len(t.vars)
	if !hasLit(0, t.lits[0]) {
		return nil, false
	}
	if k == 0 {
		return nil, len(t.lits[0]) == n
	}
	// after[m-1][j]: lits[m] vars[m] ... lits[k] matches runes[j:] to the end,
	// that is, variable m (counting from 1) may end at j.
	// from[j]: vars[m] lits[m+1] ... matches runes[j:], for the m being built.
	after := make([][]bool, k)
	from := make([]bool, n+1)
	for m := k; m >= 1; m-- {
		a := make([]bool, n+1)
		lit := t.lits[m]
		for j := 0; j+len(lit) <= n; j++ {
			if !hasLit(j, lit) {
				continue
			}
			if m == k {
				a[j] = j+len(lit) == n
			} else {
				a[j] = from[j+len(lit)]
			}
		}
		after[m-1] = a
		// Now from for variable m: one rune other than '/', then either the
		// variable ends or it goes on.
		from[n] = false
		for j := n - 1; j >= 0; j-- {
			from[j] = runes[j] != '/' && (a[j+1] || from[j+1])
		}
	}
	p := len(t.lits[0])
	if !from[p] {
		return nil, false
	}
	spans := make([]int, 0, 2*k)
	for m := 1; m <= k; m++ {
		q := p + 1
		for !after[m-1][q] {
			q++
		}
		spans = append(spans, offs[p], offs[q])
		p = q + len(t.lits[m])
	}
	return spans, true
}

// checkURI returns an invalid-params error unless s is an absolute URI (a
// scheme, then ':') free of control characters and spaces.
func checkURI(s string) *runtime.Error {
	if s == "" {
		return runtime.InvalidParams("empty uri")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			return runtime.InvalidParams("uri %q holds a control character or a space", s)
		}
	}
	colon := strings.IndexByte(s, ':')
	if colon < 1 {
		return runtime.InvalidParams("uri %q is not absolute (no scheme)", s)
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return runtime.InvalidParams("uri %q has an invalid scheme", s)
		}
	}
	if !validURIChars(s[colon+1:]) {
		return runtime.InvalidParams("uri %q is malformed", s)
	}
	return nil
}

// validURIChars reports whether rest, what follows a URI's scheme and colon,
// is made of the characters RFC 3986 allows there: unreserved and reserved
// characters, and percent-encodings of two hex digits; '[' and ']' only in
// the authority (an IP literal). Host rules of particular schemes (http's,
// say) are not applied: a resource URI's authority may be any registered
// name, percent-encoded parts included.
func validURIChars(rest string) bool {
	authority := ""
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		end := strings.IndexAny(after, "/?#")
		if end < 0 {
			end = len(after)
		}
		authority, rest = after[:end], after[end:]
	}
	return uriCharsOK(authority, true) && uriCharsOK(rest, false)
}

func uriCharsOK(s string, brackets bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~:/?#@!$&'()*+,;=", c) >= 0:
		case c == '[' || c == ']':
			if !brackets {
				return false
			}
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

var errTraversal = errors.New("path traversal")

// cleanFileURI returns the file:// URI s with its path cleaned, or an error
// when its path (percent-decoded) climbs with "..", holds a NUL, or the URI
// is not hierarchical. Other URIs are returned as they are.
func cleanFileURI(s string) (string, *runtime.Error) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return s, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" {
		return "", runtime.InvalidParams("uri %q is not a valid file URI", s)
	}
	p := u.Path
	if strings.IndexByte(p, 0) >= 0 || hasDotDot(p) {
		return "", runtime.InvalidParams("uri %q: %v is not allowed", s, errTraversal)
	}
	if p == "" {
		p = "/"
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	c := url.URL{Scheme: "file", Host: u.Host, Path: clean, RawQuery: u.RawQuery, Fragment: u.Fragment}
	return c.String(), nil
}

// hasDotDot reports whether the decoded path p has a ".." segment, with '/'
// or '\' as separators.
func hasDotDot(p string) bool {
	for seg := range strings.FieldsFuncSeq(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return true
		}
	}
	return false
}
