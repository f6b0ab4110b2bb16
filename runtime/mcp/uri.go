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
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return uriParts{}, false
		}
	}
	if s == "*" {
		u.path = "*"
		return u, true
	}
	rest := s
	// The scheme: [a-zA-Z][a-zA-Z0-9+.-]* before the first ':'.
scheme:
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				break scheme
			}
		case c == ':':
			if i == 0 {
				return uriParts{}, false // missing protocol scheme
			}
			u.scheme, rest = strings.ToLower(s[:i]), s[i+1:]
			break scheme
		default:
			break scheme
		}
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

// parseURIAuthority checks the authority ([userinfo@]host[:port]) as net/url's
// parseAuthority does and returns its host, unescaped.
func parseURIAuthority(scheme, authority string) (host string, ok bool) {
	i := strings.LastIndexByte(authority, '@')
	if host, ok = parseURIHost(scheme, authority[i+1:]); !ok || i < 0 {
		return host, ok
	}
	userinfo := authority[:i]
	for _, r := range userinfo {
		switch {
		case 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z', '0' <= r && r <= '9':
		case strings.ContainsRune("-._:~!$&'()*+,;=%@", r):
		default:
			return "", false
		}
	}
	username, password, _ := strings.Cut(userinfo, ":")
	if _, ok = uriUnescape(username, modeUserPassword); !ok {
		return "", false
	}
	if _, ok = uriUnescape(password, modeUserPassword); !ok {
		return "", false
	}
	return host, true
}

// parseURIHost is net/url's parseHost, with its default settings: colons beyond
// a port's are refused in http and https hosts.
func parseURIHost(scheme, host string) (string, bool) {
	if open := strings.LastIndexByte(host, '['); open > 0 {
		return "", false
	} else if open == 0 {
		end := strings.LastIndexByte(host, ']')
		if end < 0 {
			return "", false
		}
		colonPort := host[end+1:]
		if !validOptionalPort(colonPort) {
			return "", false
		}
		// A valid port has no '%' and only bytes a host may hold: it is its own
		// unescaping.
		hostname := host[1:end]
		var name string
		if zone := strings.Index(hostname, "%25"); zone >= 0 {
			hostPart, ok := uriUnescape(hostname[:zone], modeHost)
			if !ok {
				return "", false
			}
			zonePart, ok := uriUnescape(hostname[zone:], modeZone)
			if !ok {
				return "", false
			}
			name = hostPart + zonePart
		} else {
			var ok bool
			if name, ok = uriUnescape(hostname, modeHost); !ok {
				return "", false
			}
		}
		// Only an IPv6 address (IPv4-mapped ones included) may be in brackets.
		if !isIPv6Literal(name) {
			return "", false
		}
		return "[" + name + "]" + colonPort, true
	} else if i := strings.IndexByte(host, ':'); i >= 0 {
		if last := strings.LastIndexByte(host, ':'); last != i && scheme != "http" && scheme != "https" {
			i = last
		}
		if !validOptionalPort(host[i:]) {
			return "", false
		}
	}
	return uriUnescape(host, modeHost)
}

// validOptionalPort reports whether port is empty or matches ^:[0-9]*$.
func validOptionalPort(port string) bool {
	if port == "" {
		return true
	}
	if port[0] != ':' {
		return false
	}
	for i := 1; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// isIPv6Literal reports whether net/netip.ParseAddr parses s as an IPv6 address
// (with an optional zone): an address ParseAddr accepts that is not IPv4.
func isIPv6Literal(s string) bool {
	if zone := strings.IndexByte(s, '%'); zone >= 0 {
		if zone == len(s)-1 {
			return false // an empty zone
		}
		s = s[:zone]
	}
	if !strings.Contains(s, ":") {
		return false // IPv4 or nothing ParseAddr takes as an address
	}
	groups := 0    // 16-bit groups seen
	ellipsis := -1 // groups before "::", or -1
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		ellipsis = 0
		s = s[2:]
		if s == "" {
			return true
		}
	}
	for s != "" {
		// A hexadecimal group of one to four digits.
		n, off := 0, 0
		for ; off < len(s) && isHex(s[off]); off++ {
			if n++; n > 4 {
				return false
			}
		}
		if off == 0 {
			return false
		}
		if off < len(s) && s[off] == '.' {
			// An embedded IPv4 address: the last 32 bits.
			if ellipsis < 0 && groups != 6 || groups > 6 || !isIPv4(s) {
				return false
			}
			groups += 2
			s = ""
			break
		}
		groups++
		s = s[off:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return false
		}
		s = s[1:]
		if s[0] == ':' {
			if ellipsis >= 0 {
				return false // a second "::"
			}
			ellipsis = groups
			s = s[1:]
			if s == "" {
				break
			}
		}
		if groups == 8 {
			return false
		}
	}
	if ellipsis < 0 {
		return groups == 8
	}
	return groups < 8
}

// isIPv4 reports whether s is four dotted decimal bytes without leading zeros, as
// net/netip parses the IPv4 tail of an IPv6 address.
func isIPv4(s string) bool {
	fields := 0
	for {
		n, digits := 0, 0
		for digits < len(s) && '0' <= s[digits] && s[digits] <= '9' {
			if digits > 0 && s[0] == '0' {
				return false
			}
			n = n*10 + int(s[digits]-'0')
			if n > 255 {
				return false
			}
			digits++
		}
		if digits == 0 {
			return false
		}
		fields++
		s = s[digits:]
		if s == "" {
			return fields == 4
		}
		if s[0] != '.' || fields == 4 {
			return false
		}
		s = s[1:]
	}
}
