package verify

import (
	"errors"
	"net/url"
	"strings"
)

// normalizeHTU returns the http(s) URL raw without its query and fragment,
// normalized as RFC 9449 §4.3 asks before comparing a proof's htu: by
// syntax (RFC 3986 §6.2.2: scheme and host in lower case, percent-encoding
// in upper case and decoded for unreserved characters, dot segments
// removed) and by scheme (§6.2.3: the default port left out, an empty path
// as "/").
func normalizeHTU(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return "", errors.New("not an absolute http(s) URL")
	}
	host := strings.ToLower(u.Host)
	if h, port, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		if port == "" || scheme == "https" && port == "443" || scheme == "http" && port == "80" {
			host = h
		}
	} else if i := strings.LastIndex(host, "]:"); i >= 0 {
		if port := host[i+2:]; port == "" || scheme == "https" && port == "443" || scheme == "http" && port == "80" {
			host = host[:i+1]
		}
	}
	if host == "" || strings.HasPrefix(host, ":") {
		return "", errors.New("no host")
	}
	path, err := normalizePercent(u.EscapedPath())
	if err != nil {
		return "", err
	}
	path = removeDotSegments(path)
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path, nil
}

// normalizePercent upper-cases the hex digits of percent-encodings and
// decodes those of unreserved characters (RFC 3986 §6.2.2.1, §6.2.2.2).
func normalizePercent(p string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '%' {
			b.WriteByte(p[i])
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return "", errors.New("a bad percent-encoding")
		}
		c := unhex(p[i+1])<<4 | unhex(p[i+2])
		if isUnreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
		}
		i += 2
	}
	return b.String(), nil
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

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// removeDotSegments is RFC 3986 §5.2.4's algorithm.
func removeDotSegments(in string) string {
	var out []string // output segments, each with its leading "/"
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			i := strings.IndexByte(in[1:], '/')
			if i < 0 {
				out, in = append(out, in), ""
			} else {
				out, in = append(out, in[:i+1]), in[i+1:]
			}
		}
	}
	return strings.Join(out, "")
}
