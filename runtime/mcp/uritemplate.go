package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
)

// URITemplate is a parsed resource URI template: RFC 6570 level 1, where the
// only expressions are simple {var} ones, such as "notes://{id}" or
// "file:///docs/{name}.md".
type URITemplate struct {
	raw  string
	vars []string
	re   *regexp.Regexp
}

// ParseURITemplate parses s, a URI template of level 1: literal text and
// {var} expressions, a var being letters, digits and '_' (with '.' between
// them). It refuses other expressions ({+var}, {var*}, {a,b}), a variable
// used twice, two expressions with no literal text between them (whose
// values could not be told apart), and a template that does not make an
// absolute URI.
func ParseURITemplate(s string) (*URITemplate, error) {
	t := &URITemplate{raw: s}
	var re strings.Builder
	var sample strings.Builder // s with each variable replaced, to check the URI
	re.WriteByte('^')
	lastVar := -1 // index in s just after the last expression
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
			re.WriteString(`([^/]+?)`)
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
			re.WriteString(regexp.QuoteMeta(s[i:j]))
			sample.WriteString(s[i:j])
			i = j
		}
	}
	re.WriteByte('$')
	if err := checkURI(sample.String()); err != nil {
		return nil, fmt.Errorf("uri template %q: %s", s, err.Message)
	}
	var err error
	if t.re, err = regexp.Compile(re.String()); err != nil {
		return nil, fmt.Errorf("uri template %q: %v", s, err)
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
// characters other than '/'.
func (t *URITemplate) Match(uri string) (map[string]string, bool) {
	m := t.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(t.vars))
	for i, name := range t.vars {
		v, err := url.PathUnescape(m[i+1])
		if err != nil {
			return nil, false
		}
		vars[name] = v
	}
	return vars, true
}

// Expand returns the URI the template makes with vars, each escaped with
// EscapeURIVar; a missing variable expands to nothing.
func (t *URITemplate) Expand(vars map[string]string) string {
	var b strings.Builder
	s := t.raw
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		b.WriteString(EscapeURIVar(vars[s[i+1:i+end]]))
		s = s[i+end+1:]
	}
}

// EscapeURIVar escapes v for a {var} of a URI template (RFC 6570 simple
// string expansion): every byte but the unreserved ones (A-Z a-z 0-9 - . _ ~)
// is percent-encoded.
func EscapeURIVar(v string) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(v); i++ {
		if !unreserved(v[i]) {
			n++
		}
	}
	if n == 0 {
		return v
	}
	b := make([]byte, 0, len(v)+2*n)
	for i := 0; i < len(v); i++ {
		if c := v[i]; unreserved(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
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
	if _, err := url.Parse(s); err != nil {
		return runtime.InvalidParams("uri %q is malformed", s)
	}
	return nil
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
