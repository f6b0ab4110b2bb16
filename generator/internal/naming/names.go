// Package naming derives the names rpcgen gives things from Go names:
// JSON-RPC method names, MCP tool names, Go identifiers and the default
// output file name.
package naming

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// OutputName is the default output file: the first interface's name in lower
// case, plus "_rpcgen.go".
func OutputName(iface string) string {
	return strings.ToLower(iface) + "_rpcgen.go"
}

// LowerCamel turns a Go name into the lowerCamel form used for method names:
// "Add" -> "add", "GetData" -> "getData", "HTTPStatus" -> "httpStatus", "ID" -> "id",
// "URLs" -> "urls".
func LowerCamel(s string) string {
	runes := []rune(s)
	n := 0
	for n < len(runes) && unicode.IsUpper(runes[n]) {
		n++
	}
	switch {
	case n == 0:
		return s
	case n == 1 || n == len(runes):
		// "Add" -> "add"; "ID" -> "id"
	case runes[n] == 's' && (n+1 == len(runes) || unicode.IsUpper(runes[n+1])):
		// "URLs", "IDsByName": a plural initialism
	case unicode.IsLetter(runes[n]):
		n-- // "HTTPStatus": keep the S of Status
	}
	for i := range n {
		runes[i] = unicode.ToLower(runes[i])
	}
	return string(runes)
}

// UpperFirst exports a Go identifier: "limit" -> "Limit".
func UpperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// LowerFirst unexports a Go identifier: "Calculator" -> "calculator".
func LowerFirst(s string) string {
	return LowerCamel(s)
}

// SnakeCase turns a Go name into the snake_case form used for MCP tool names:
// "AddNote" -> "add_note", "GetHTTPStatus" -> "get_http_status", "ListURLs" -> "list_urls".
func SnakeCase(s string) string {
	runes := []rune(s)
	var out []rune
	for i, r := range runes {
		if unicode.IsUpper(r) && i > 0 {
			prevLower := unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1])
			// The last capital of an initialism starts a new word ("HTTPStatus"),
			// unless it is a plural "s" ("URLs").
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1]) &&
				!(runes[i+1] == 's' && (i+2 == len(runes) || unicode.IsUpper(runes[i+2])))
			if prevLower || (unicode.IsUpper(runes[i-1]) && nextLower) {
				out = append(out, '_')
			}
		}
		out = append(out, unicode.ToLower(r))
	}
	return string(out)
}

// ValidToolName reports whether name follows MCP's tool-name rule (2025-11-25
// and later): 1 to 128 characters, each one of A-Z a-z 0-9 _ - .
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// initialisms are the words Go style writes in capitals.
var initialisms = map[string]string{
	"Id": "ID", "Ids": "IDs", "Url": "URL", "Urls": "URLs", "Uri": "URI", "Http": "HTTP",
	"Json": "JSON", "Api": "API", "Uuid": "UUID", "Ip": "IP", "Sql": "SQL", "Html": "HTML",
}

// GoFieldName exports a param name as Go style writes it: "limit" -> "Limit",
// "id" -> "ID", "userId" -> "UserID".
func GoFieldName(s string) string {
	name := UpperFirst(s)
	if v, ok := initialisms[name]; ok {
		return v
	}
	for word, v := range initialisms {
		if strings.HasSuffix(name, word) && len(name) > len(word) {
			rest := name[:len(name)-len(word)]
			if last := rest[len(rest)-1]; last >= 'a' && last <= 'z' {
				return rest + v
			}
		}
	}
	return name
}

// Title turns a Go method name into the display name of its MCP tool, in
// sentence case, initialisms kept: "AddNote" -> "Add note",
// "GetHTTPStatus" -> "Get HTTP status", "ListURLs" -> "List URLs".
func Title(s string) string {
	words := strings.Split(SnakeCase(s), "_")
	runes := []rune(s)
	out := make([]string, 0, len(words))
	at := 0 // where the word starts in s
	for i, w := range words {
		n := len([]rune(w))
		orig := string(runes[at : at+n])
		at += n
		switch {
		case i == 0:
			out = append(out, UpperFirst(orig))
		case isInitialism(orig):
			out = append(out, orig)
		default:
			out = append(out, strings.ToLower(orig))
		}
	}
	return strings.Join(out, " ")
}

// isInitialism reports whether a word of a Go name is written in capitals
// ("HTTP", "URLs", "ID"), not a capitalised word ("Note").
func isInitialism(w string) bool {
	w = strings.TrimSuffix(w, "s")
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
