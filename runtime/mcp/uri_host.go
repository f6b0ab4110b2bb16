package mcp

import "strings"

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
		off := hexGroupLen(s)
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

// hexGroupLen returns the length of the hexadecimal group of one to four digits
// that s starts with, or 0 if it starts with none or with more than four digits.
func hexGroupLen(s string) int {
	off := 0
	for off < len(s) && isHex(s[off]) {
		if off++; off > 4 {
			return 0
		}
	}
	return off
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
