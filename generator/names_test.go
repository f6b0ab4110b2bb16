package generator

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
		if got := lowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitDirectiveArgs(t *testing.T) {
	tests := []struct {
		in      string
		want    []directiveArg
		wantErr string
	}{
		{in: "name=notes", want: []directiveArg{{Key: "name", Value: "notes", HasValue: true}}},
		{in: "notification", want: []directiveArg{{Key: "notification"}}},
		{in: `name="a b" notification`, want: []directiveArg{{Key: "name", Value: "a b", HasValue: true, Pos: 0}, {Key: "notification", Pos: 11}}},
		{in: "name=`x\"y`", want: []directiveArg{{Key: "name", Value: `x"y`, HasValue: true}}},
		{in: `name=""`, want: []directiveArg{{Key: "name", Value: "", HasValue: true}}},
		{in: "name=", want: []directiveArg{{Key: "name", Value: "", HasValue: true}}},
		{in: `name="open`, wantErr: "unterminated or malformed quoted string"},
		{in: `name="a"b`, wantErr: "unexpected"},
		{in: "=x", wantErr: "malformed argument"},
		{in: "na.me=x", wantErr: "malformed argument"},
	}
	for _, tt := range tests {
		got, err := splitDirectiveArgs(tt.in, 0)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			w := tt.want[i]
			if got[i].Key != w.Key || got[i].Value != w.Value || got[i].HasValue != w.HasValue || (w.Pos != 0 && got[i].Pos != w.Pos) {
				t.Errorf("%q arg %d: got %+v, want %+v", tt.in, i, got[i], w)
			}
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
		if got := snakeCase(in); got != want {
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
		if got := validToolName(name); got != want {
			t.Errorf("validToolName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestGoFieldName(t *testing.T) {
	for in, want := range map[string]string{
		"limit": "Limit", "id": "ID", "userId": "UserID", "ids": "IDs", "url": "URL",
		"baseUrl": "BaseURL", "valid": "Valid", "Ideal": "Ideal", "apiKey": "ApiKey", "x": "X",
	} {
		if got := goFieldName(in); got != want {
			t.Errorf("goFieldName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGroupImports(t *testing.T) {
	src := "package p\n\nimport (\n\t\"github.com/x/y\"\n\t\"context\"\n\tz \"example.com/z\"\n\t\"encoding/json\"\n)\n\nvar _ = 1\n"
	want := "package p\n\nimport (\n\t\"context\"\n\t\"encoding/json\"\n\n\t\"github.com/x/y\"\n\tz \"example.com/z\"\n)\n\nvar _ = 1\n"
	if got := string(groupImports([]byte(src))); got != want {
		t.Errorf("groupImports:\n%s\nwant:\n%s", got, want)
	}
	if src := "package p\n\nimport \"fmt\"\n"; string(groupImports([]byte(src))) != src {
		t.Errorf("a single import changed")
	}
}
