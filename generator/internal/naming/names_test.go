package naming

import (
	"strings"
	"testing"
)

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{
		"Add":        "add",
		"GetData":    "getData",
		"HTTPStatus": "httpStatus",
		"ID":         "id",
		"URLs":       "urls",
		"IDsByName":  "idsByName",
		"HTTPServer": "httpServer",
		"add":        "add",
		"A":          "a",
		"ÉtéTime":    "étéTime",
	} {
		if got := LowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"Add":           "add",
		"AddNote":       "add_note",
		"GetHTTPStatus": "get_http_status",
		"HTTPStatus":    "http_status",
		"ListURLs":      "list_urls",
		"URLsByID":      "urls_by_id",
		"ID":            "id",
		"Get2FACode":    "get2_fa_code",
		"ABTest":        "ab_test",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidToolName(t *testing.T) {
	for name, want := range map[string]bool{
		"add_note": true, "notes.add-v2": true, "A": true,
		"": false, "add note": false, "a,b": false, "é": false,
		strings.Repeat("x", 128): true, strings.Repeat("x", 129): false,
	} {
		if got := ValidToolName(name); got != want {
			t.Errorf("validToolName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestGoFieldName(t *testing.T) {
	for in, want := range map[string]string{
		"limit": "Limit", "id": "ID", "userId": "UserID", "ids": "IDs", "url": "URL",
		"baseUrl": "BaseURL", "valid": "Valid", "Ideal": "Ideal", "apiKey": "ApiKey", "x": "X",
	} {
		if got := GoFieldName(in); got != want {
			t.Errorf("goFieldName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Add":           "Add",
		"AddNote":       "Add note",
		"SearchNotes":   "Search notes",
		"GetHTTPStatus": "Get HTTP status",
		"ListURLs":      "List URLs",
		"URLsByID":      "URLs by ID",
		"ID":            "ID",
		"ABTest":        "AB test",
		"NoteAsJSON":    "Note as JSON",
	} {
		if got := Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}
