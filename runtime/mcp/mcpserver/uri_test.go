package mcpserver

import (
	"maps"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The package matches URI templates without regexp (uritemplate.go); these
// tests hold it to what regexp does, and cleanFileURI to its promises.

var uriSeeds = []string{
	"", "*", ":", "a:", "a:b", "A+1.-x:rest", "1a:b", "a", "a/b:c", "a:b/c", "./a:b", "/a:b", "//host/p",
	"///p", "file:///docs/a.md", "file://localhost/etc/passwd", "file:/x", "file:x", "file:", "FILE:///A",
	"file:///a/../b", "file:///a/%2e%2e/b", "file:///a%2Fb", "file:///a b", "file:///%zz", "file:///%4", "file:///a%00b",
	"file:///a?q=1#frag", "file:///a?", "file:///a??", "file:///a#", "file:///a#%zz", "file:///a#b#c", "file:///a#%41!'*",
	"file:///é", "file:///\xff", "file://h%41st/", "file://h%C3%A9/", "file://h%2541/", "file://h st/", "file://h<>\"/",
	"file://host:80/", "file://host:8a/", "file://host:/", "file://a:1:2/", "http://a:1:2/", "https://a:1/", "http://a::1/",
	"file://[::1]/", "file://[::1]:80/", "file://[::1]x/", "file://[1.2.3.4]/", "file://[::ffff:1.2.3.4]/",
	"file://[fe80::1%25en0]/", "file://[fe80::1%25]/", "file://[fe80::1%25%41]/", "file://[fe80::1%25%2F]/", "file://[fe80::1%25%20x]/",
	"file://[::1", "file://x[::1]/", "file://[1:2:3:4:5:6:7:8]/", "file://[1:2:3:4:5:6:7:8:9]/", "file://[1::2::3]/",
	"file://[12345::]/", "file://[::1.2.3]/", "file://[::01.2.3.4]/", "file://[1:2:3:4:5:6:1.2.3.4]/", "file://[1:2:3:4:5:6:7:1.2.3.4]/",
	"file://[:1]/", "file://[1:]/", "file://[1:2:3:4:5:6:7::]/", "file://[::1:2:3:4:5:6:7:8]/", "file://[%31::]/",
	"file://user@host/", "file://u:p@host/", "file://u:p@ss@host/", "file://u%zz@host/", "file://u é@host/", "file://u/p@host/",
	"file://u%40:p%3A@host/x", "notes://{x}", "a:b\x7f", "a:\tb", "mailto:x@y", "urn:isbn:1", "http://[::1]:x/", "s://%", "s:%zz",
}

// checkCleanFileURI holds cleanFileURI to what it promises: a URI that is
// not file: is returned as it is; a file: URI comes back parseable, with a
// path free of "..", NUL and duplicate separators, and cleaning it again
// changes nothing; one it refuses is one net/url cannot parse, one with an
// opaque part, or one whose decoded path climbs or holds a NUL.
func checkCleanFileURI(t *testing.T, s string) {
	t.Helper()
	got, err := cleanFileURI(s)
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		if err != nil || got != s {
			t.Fatalf("cleanFileURI(%q) = %q, %v; want it unchanged", s, got, err)
		}
		return
	}
	u, perr := url.Parse(s)
	refused := perr != nil || u.Opaque != "" || strings.IndexByte(u.Path, 0) >= 0 || hasDotDot(u.Path)
	if (err != nil) != refused {
		t.Fatalf("cleanFileURI(%q) = %q, %v; want refused: %v", s, got, err, refused)
	}
	if err != nil {
		return
	}
	c, perr := url.Parse(got)
	if perr != nil && strings.Contains(u.Host, "%") {
		return // net/url escapes a zone's raw bytes, then refuses the escape it wrote
	}
	if perr != nil || c.Scheme != "file" || hasDotDot(c.Path) || strings.Contains(c.Path, "//") || c.Host != u.Host {
		t.Fatalf("cleanFileURI(%q) = %q: not a clean file URI of the same host (%v)", s, got, perr)
	}
	if again, err := cleanFileURI(got); err != nil || again != got {
		t.Fatalf("cleanFileURI(%q) = %q, cleaned again %q, %v", s, got, again, err)
	}
}

func FuzzCleanFileURI(f *testing.F) {
	for _, s := range uriSeeds {
		f.Add(s)
	}
	f.Fuzz(checkCleanFileURI)
}

func TestCleanFileURI(t *testing.T) {
	for _, s := range uriSeeds {
		checkCleanFileURI(t, s)
		if strings.HasPrefix(s, "file:") {
			checkCleanFileURI(t, s+"/./x/")
		}
	}
	for s, want := range map[string]string{
		"file:///docs//a/./b":          "file:///docs/a/b",
		"file://h%C3%A9/a%20b?q#f%20g": "file://h%C3%A9/a%20b?q#f%20g",
		"file:/x/":                     "file:///x/",
	} {
		if got, err := cleanFileURI(s); err != nil || got != want {
			t.Errorf("cleanFileURI(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
}

// refTemplateRegexp is the regular expression URITemplate.Match used to compile.
func refTemplateRegexp(tm *URITemplate) *regexp.Regexp {
	var re strings.Builder
	re.WriteByte('^')
	for i, lit := range tm.lits {
		if i > 0 {
			re.WriteString(`([^/]+?)`)
		}
		re.WriteString(regexp.QuoteMeta(string(lit)))
	}
	re.WriteByte('$')
	return regexp.MustCompile(re.String())
}

func checkTemplateMatch(t *testing.T, tmpl, uri string) {
	t.Helper()
	tm, err := ParseURITemplate(tmpl)
	if err != nil {
		return
	}
	got, ok := tm.Match(uri)
	var want map[string]string
	if m := refTemplateRegexp(tm).FindStringSubmatch(uri); m != nil {
		want = map[string]string{}
		for i, name := range tm.vars {
			v, err := url.PathUnescape(m[i+1])
			if err != nil || !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
				want = nil // not text: no match
				break
			}
			want[name] = v
		}
	}
	if ok != (want != nil) || !maps.Equal(got, want) {
		t.Fatalf("template %q: Match(%q) = %v, %v; regexp: %v", tmpl, uri, got, ok, want)
	}
}

var templateSeeds = [][2]string{
	{"file:///docs/{dir}/{name}.md", "file:///docs/a/b.c.md"},
	{"x:{a}.{b}", "x:a.b.c"},
	{"x:{a}.{b}", "x:..."},
	{"x:{a}.{b}.", "x:a.b.c."},
	{"x:{a}-{b}-{c}", "x:------"},
	{"x:{a}-{b}-{c}z", "x:-------y"},
	{"x:{a}", "x:"},
	{"x:{a}", "x:\xff\xfe"},
	{"x:{a}", "x:%0a"},
	{"x:{a}", "x:a%c2%85b"},
	{"x:{a}", "x:%EF%BF%BD"},
	{"x:{a}\uFFFD", "x:a\xff"},
	{"x:{a}é{b}", "x:ééé"},
	{"x:{a}/{b}", "x:a/b/c"},
	{"x:/fixed", "x:/fixed"},
	{"x:/fixed", "x:/fixed/"},
	{"n://{id}/raw", "n://a%2Fb/raw"},
	{"n://{id}/raw", "n://%zz/raw"},
	{"x:{a}ab{b}", "x:aabab"},
	{"x:{a}aa{b}", "x:aaaaa"},
}

func FuzzTemplateMatch(f *testing.F) {
	for _, s := range templateSeeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(checkTemplateMatch)
}

func TestTemplateMatchAsRegexp(t *testing.T) {
	for _, s := range templateSeeds {
		checkTemplateMatch(t, s[0], s[1])
	}
	// Invalid UTF-8 in a template is refused, as regexp refused it.
	if _, err := ParseURITemplate("x:{a}\xff"); err == nil {
		t.Error("ParseURITemplate accepted invalid UTF-8")
	}
}

// A long URI that almost matches a template with many variables takes linear
// time, as it did with regexp.
func TestTemplateMatchLinear(t *testing.T) {
	tm, err := ParseURITemplate("x:{a}-{b}-{c}-{d}-{e}-{f}z")
	if err != nil {
		t.Fatal(err)
	}
	uri := "x:" + strings.Repeat("-", 1<<16) + "y"
	if _, ok := tm.Match(uri); ok {
		t.Fatal("matched")
	}
}

// TestCheckURI checks the URI syntax resources/read accepts: RFC 3986
// characters after an absolute scheme, percent-encodings in any part,
// authority included (a template variable may sit there), and brackets only
// in the authority.
func TestCheckURI(t *testing.T) {
	for _, s := range []string{
		"test://static-text",
		"books://war%20%26%20peace%2F2/pages/12",
		"urn:isbn:0451450523",
		"file:///tmp/a%20b.txt",
		"test://[::1]:8080/x?q=1&r=a%2Bb#frag",
		"mailto:a@b.example",
		"x:!$&'()*+,;=-._~:@/?",
	} {
		if err := checkURI(s); err != nil {
			t.Errorf("checkURI(%q) = %v, want nil", s, err)
		}
	}
	for _, s := range []string{
		"", "no-scheme", ":x", "1x:y", "x y:z", "test://a b", "test://a\tb", "test://a\x7f",
		"x:%zz", "x:%4", "x:a%", "x:a|b", `x:a"b`, "x:a<b>", "x:a{b}", "x:a\\b", "x:a^b", "x:a`b",
		"test://host/[x]", "test:[x]", "x:é",
	} {
		if err := checkURI(s); err == nil {
			t.Errorf("checkURI(%q) = nil, want an error", s)
		} else if err.Code != -32602 {
			t.Errorf("checkURI(%q): code %d, want -32602", s, err.Code)
		}
	}
}
