package mcp

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
