package mcp

import "strings"

// This file parses URIs as net/url.Parse does, for the few results the package
// needs (whether a URI parses, its scheme, host, path, query and fragment), and
// escapes and unescapes as net/url does. Importing net/url would pull net/netip
// into every server, whose package initialisation is a measurable part of a stdio
// server's cold start. uri_test.go checks these functions against net/url.

// uriMode is the part of a URI being escaped or unescaped, as net/url's encoding.
type uriMode uint8

const (
	modePath uriMode = iota
	modePathSegment
	modeHost
	modeZone
	modeUserPassword
	modeFragment
)

// uriShouldEscape reports whether net/url escapes c in the given part.
func uriShouldEscape(c byte, mode uriMode) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return false
	}
	if mode == modeHost || mode == modeZone {
		switch c {
		case '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=', ':', '[', ']', '<', '>', '"':
			return false
		}
	}
	switch c {
	case '-', '_', '.', '~':
		return false
	case '$', '&', '+', ',', '/', ':', ';', '=', '?', '@':
		switch mode {
		case modePath:
			return c == '?'
		case modePathSegment:
			return c == '/' || c == ';' || c == ',' || c == '?'
		case modeUserPassword:
			return c == '@' || c == '/' || c == '?' || c == ':'
		case modeFragment:
			return false
		}
	}
	if mode == modeFragment {
		switch c {
		case '!', '(', ')', '*':
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// uriUnescape decodes the %XX escapes of s as net/url's unescape does for mode,
// with its checks; ok is false where net/url returns an error.
func uriUnescape(s string, mode uriMode) (string, bool) {
	n := 0
	for i := 0; i < len(s); {
		if s[i] != '%' {
			if (mode == modeHost || mode == modeZone) && s[i] < 0x80 && uriShouldEscape(s[i], mode) {
				return "", false
			}
			i++
			continue
		}
		n++
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		if mode == modeHost && unhex(s[i+1]) < 8 && s[i:i+3] != "%25" {
			return "", false
		}
		if mode == modeZone {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if s[i:i+3] != "%25" && v != ' ' && uriShouldEscape(v, modeHost) {
				return "", false
			}
		}
		i += 3
	}
	if n == 0 {
		return s, true
	}
	b := make([]byte, 0, len(s)-2*n)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		} else {
			b = append(b, s[i])
		}
	}
	return string(b), true
}

// uriEscape percent-encodes the bytes of s that net/url escapes in mode.
func uriEscape(s string, mode uriMode) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(s); i++ {
		if uriShouldEscape(s[i], mode) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; uriShouldEscape(c, mode) {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

// uriParts is what net/url.Parse makes of a URI, for the fields this package reads.
type uriParts struct {
	scheme   string // lower-cased
	opaque   string
	host     string // unescaped
	path     string // unescaped
	rawQuery string
	fragment string // unescaped
}

// parseURI parses s as net/url.Parse does; ok is false where Parse fails.
func parseURI(s string) (u uriParts, ok bool) {
	rest, frag, hasFrag := strings.Cut(s, "#")
	if u, ok = parseURINoFragment(rest); !ok {
		return uriParts{}, false
	}
	if hasFrag && frag != "" {
		if u.fragment, ok = uriUnescape(frag, modeFragment); !ok {
			return uriParts{}, false
		}
	}
	return u, true
}

// parseURINoFragment is net/url's parse(s, false).
func parseURINoFragment(s string) (u uriParts, ok bool) {
	if hasControlByte(s) {
		return uriParts{}, false
	}
	if s == "*" {
		u.path = "*"
		return u, true
	}
	var rest string
	if u.scheme, rest, ok = splitURIScheme(s); !ok {
		return uriParts{}, false
	}
	if strings.HasSuffix(rest, "?") && strings.Count(rest, "?") == 1 {
		rest = rest[:len(rest)-1]
	} else {
		rest, u.rawQuery, _ = strings.Cut(rest, "?")
	}
	if !strings.HasPrefix(rest, "/") {
		if u.scheme != "" {
			u.opaque = rest
			return u, true
		}
		if segment, _, _ := strings.Cut(rest, "/"); strings.Contains(segment, ":") {
			return uriParts{}, false // a colon in the first segment of a relative URL
		}
	}
	if (u.scheme != "" || !strings.HasPrefix(rest, "///")) && strings.HasPrefix(rest, "//") {
		authority := rest[2:]
		rest = ""
		if i := strings.IndexByte(authority, '/'); i >= 0 {
			authority, rest = authority[:i], authority[i:]
		}
		if u.host, ok = parseURIAuthority(u.scheme, authority); !ok {
			return uriParts{}, false
		}
	}
	if u.path, ok = uriUnescape(rest, modePath); !ok {
		return uriParts{}, false
	}
	return u, true
}

// hasControlByte reports whether s holds an ASCII control byte or DEL, which
// net/url refuses anywhere in a URI.
func hasControlByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// splitURIScheme splits off the scheme ([a-zA-Z][a-zA-Z0-9+.-]* before the first
// ':'), lower-cased, as net/url's getScheme does; ok is false for a missing scheme
// (a leading ':').
func splitURIScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return "", s, true
			}
		case c == ':':
			if i == 0 {
				return "", "", false
			}
			return strings.ToLower(s[:i]), s[i+1:], true
		default:
			return "", s, true
		}
	}
	return "", s, true
}
