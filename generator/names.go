package generator

import (
	"unicode"
	"unicode/utf8"
)

// lowerCamel turns a Go name into the lowerCamel form used for method names:
// "Add" -> "add", "GetData" -> "getData", "HTTPStatus" -> "httpStatus", "ID" -> "id",
// "URLs" -> "urls".
func lowerCamel(s string) string {
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

// upperFirst exports a Go identifier: "limit" -> "Limit".
func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// lowerFirst unexports a Go identifier: "Calculator" -> "calculator".
func lowerFirst(s string) string {
	return lowerCamel(s)
}
