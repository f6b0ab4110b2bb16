package generator

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/rpcgen/rpcgen/generator/internal/goldentest"
)

// TestNullableDescriptionsSurvive reads the golden case nullable_described,
// whose result type has a described field of each kind that may be null
// (pointer, slice, map, []byte, time pointer, map of pointers), and checks
// what a reader of each output sees: the field's doc in the TypeScript
// JSDoc right above it, in its Markdown row (with the bounds of a nullable
// number), and as the description of the property itself, beside the
// anyOf, in the OpenRPC component and in the tool's output schema.
func TestNullableDescriptionsSurvive(t *testing.T) {
	repo, err := goldentest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile(filepath.Join(repo, "testdata", "golden", "nullable_described.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string) string {
		for _, f := range ar.Files {
			if f.Name == name {
				return string(f.Data)
			}
		}
		t.Fatalf("golden case nullable_described has no %s", name)
		return ""
	}
	fields := map[string]string{
		"owner":   "Owner is who holds the item, when someone does.",
		"tags":    "Tags label the item.",
		"attrs":   "Attrs are free-form attributes.",
		"blob":    "Blob is the item's raw bytes.",
		"when":    "When is when the item last moved.",
		"count":   "Count is how many there are.",
		"holders": "Holders are everyone who held it.",
		"byShelf": "ByShelf are the holders by shelf, null where nobody holds it.",
	}

	ts, md := file("want/store.ts"), file("want/STORE.md")
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(file("want/store.openrpc.json")), &doc); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("storeGetOutputSchema += `([^`]*)`").FindStringSubmatch(file("want/store_rpcgen.go"))
	if m == nil {
		t.Fatal("no storeGetOutputSchema in the Go file")
	}
	var out struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal([]byte(m[1]), &out); err != nil {
		t.Fatal(err)
	}
	for name, desc := range fields {
		jsdoc := regexp.MustCompile(`(?m)^   \* ` + regexp.QuoteMeta(desc) + `\n(   \*.*\n)*   \*/\n  ` + name + `\??: [^\n]*\| null;$`)
		if !jsdoc.MatchString(ts) {
			t.Errorf("TypeScript: field %s (nullable) lacks its JSDoc %q", name, desc)
		}
		row := regexp.MustCompile("(?m)^\\| `" + name + "` \\| [^|]* or null \\| (yes|no) \\| " + regexp.QuoteMeta(desc))
		if !row.MatchString(md) {
			t.Errorf("Markdown: the row of %s lacks %q", name, desc)
		}
		for where, p := range map[string]map[string]any{
			"OpenRPC component Item": doc.Components.Schemas["Item"].Properties[name],
			"tool output schema":     out.Properties[name],
		} {
			if p["description"] != desc {
				t.Errorf("%s: property %s has description %v, want %q beside its anyOf", where, name, p["description"], desc)
			}
			if _, ok := p["anyOf"]; !ok {
				t.Errorf("%s: property %s is not nullable (no anyOf): %v", where, name, p)
			}
		}
	}
	for _, want := range []string{
		"| `count` | integer or null | no | Count is how many there are. (minimum 0,",
		"| `byShelf` | object of ([Owner](#owner) or null) or null |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}
