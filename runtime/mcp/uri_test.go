package mcp

import (
	"maps"
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The package parses, escapes and matches URIs without net/url and regexp (see
// uri.go); these tests hold it to what net/url, net/netip and regexp do.

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

func FuzzParseURI(f *testing.F) {
	for _, s := range uriSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseURI(s)
		want, err := url.Parse(s)
		if ok != (err == nil) {
			t.Fatalf("parseURI(%q) ok = %v; url.Parse: %v", s, ok, err)
		}
		if !ok {
			return
		}
		w := uriParts{scheme: want.Scheme, opaque: want.Opaque, host: want.Host, path: want.Path, rawQuery: want.RawQuery, fragment: want.Fragment}
		if got != w {
			t.Fatalf("parseURI(%q) = %+v, want %+v", s, got, w)
		}
	})
}

func TestParseURI(t *testing.T) {
	for _, s := range uriSeeds {
		got, ok := parseURI(s)
		want, err := url.Parse(s)
		if ok != (err == nil) {
			t.Errorf("parseURI(%q) ok = %v; url.Parse: %v", s, ok, err)
			continue
		}
		if ok {
			w := uriParts{scheme: want.Scheme, opaque: want.Opaque, host: want.Host, path: want.Path, rawQuery: want.RawQuery, fragment: want.Fragment}
			if got != w {
				t.Errorf("parseURI(%q) = %+v, want %+v", s, got, w)
			}
		}
	}
}

// refCleanFileURI is cleanFileURI as it was written with net/url.
func refCleanFileURI(s string) (string, bool) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return s, true
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" {
		return "", false
	}
	p := u.Path
	if strings.IndexByte(p, 0) >= 0 || hasDotDot(p) {
		return "", false
	}
	if p == "" {
		p = "/"
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	c := url.URL{Scheme: "file", Host: u.Host, Path: clean, RawQuery: u.RawQuery, Fragment: u.Fragment}
	return c.String(), true
}

func checkCleanFileURI(t *testing.T, s string) {
	t.Helper()
	got, err := cleanFileURI(s)
	want, ok := refCleanFileURI(s)
	if (err == nil) != ok || got != want {
		t.Fatalf("cleanFileURI(%q) = %q, %v; want %q, ok %v", s, got, err, want, ok)
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

func checkURIEscaping(t *testing.T, s string) {
	t.Helper()
	got, ok := uriUnescape(s, modePathSegment)
	want, err := url.PathUnescape(s)
	if ok != (err == nil) || got != want {
		t.Fatalf("uriUnescape(%q) = %q, %v; url.PathUnescape: %q, %v", s, got, ok, want, err)
	}
	if got, want := uriEscape(s, modePath), (&url.URL{Path: s}).EscapedPath(); got != want && s != "*" {
		t.Fatalf("uriEscape(%q, path) = %q, want %q", s, got, want)
	}
	if got, want := uriEscape(s, modeFragment), (&url.URL{Fragment: s}).EscapedFragment(); got != want {
		t.Fatalf("uriEscape(%q, fragment) = %q, want %q", s, got, want)
	}
	if got, want := uriEscape(s, modePathSegment), url.PathEscape(s); got != want {
		t.Fatalf("uriEscape(%q, path segment) = %q, want %q", s, got, want)
	}
}

func FuzzURIEscaping(f *testing.F) {
	for _, s := range []string{"", "a%20b", "%", "%2", "%zz", "a+b", "é", "\xff", "a/b?c#d;e,f", "!'()*", "%41%42"} {
		f.Add(s)
	}
	f.Fuzz(checkURIEscaping)
}

func TestURIEscaping(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{"", "a%20b", "%", "%2", "%zz", "%41%4a%4A", "a+b", "é", "\xff", "a/b?c#d;e,f", "!'()*", all.String()} {
		checkURIEscaping(t, s)
	}
}

func checkIPv6Literal(t *testing.T, s string) {
	t.Helper()
	a, err := netip.ParseAddr(s)
	want := err == nil && !a.Is4()
	if got := isIPv6Literal(s); got != want {
		t.Fatalf("isIPv6Literal(%q) = %v; netip.ParseAddr: %v, %v", s, got, a, err)
	}
}

var ipSeeds = []string{
	"", "::", ":", ":::", "::1", "1::", "1::2", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
	"1::3:4:5:6:7:8", "1:2:3:4:5:6:7", "12345::", "ffff::", "FFFF::g", "1.2.3.4", "::1.2.3.4", "::ffff:1.2.3.4",
	"1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "1:2:3:4:5::1.2.3.4", "::1.2.3", "::1.2.3.4.5", "::01.2.3.4",
	"::0.0.0.0", "::256.1.1.1", "::1.2.3.4.", "::1..2.3", "::a.2.3.4", "fe80::1%en0", "fe80::1%", "%en0", "1.2.3.4%x",
	"1::2::3", "1:", ":1", "1::%", "::%a%b", "1.2::3", "::1:", "::1::",
}

func FuzzIPv6Literal(f *testing.F) {
	for _, s := range ipSeeds {
		f.Add(s)
	}
	f.Fuzz(checkIPv6Literal)
}

func TestIPv6Literal(t *testing.T) {
	for _, s := range ipSeeds {
		checkIPv6Literal(t, s)
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
