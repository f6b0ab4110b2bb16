package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/invopop/jsonschema"
)

func TestCloneSchema(t *testing.T) {
	n := uint64(3)
	props := jsonschema.NewProperties()
	props.Set("b", &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string", Enum: []any{"x"}}, MinItems: &n})
	props.Set("a", &jsonschema.Schema{Type: "integer", Minimum: json.Number("0")})
	s := &jsonschema.Schema{
		Type:                 "object",
		Description:          "d",
		Properties:           props,
		Required:             []string{"b"},
		AdditionalProperties: jsonschema.FalseSchema,
		PropertyNames:        &jsonschema.Schema{Pattern: "^[0-9]+$"},
		AnyOf:                []*jsonschema.Schema{jsonschema.TrueSchema, {Type: "null"}},
		Definitions:          jsonschema.Definitions{"T": {Ref: "#/$defs/T"}},
		Default:              []any{"z"},
		Extras:               map[string]any{"x-k": 1},
	}
	c := Clone(s)
	if !reflect.DeepEqual(c, s) || string(Marshal(c)) != string(Marshal(s)) {
		t.Fatalf("clone differs:\n%s\n%s", Marshal(c), Marshal(s))
	}
	if c.AdditionalProperties != jsonschema.FalseSchema || c.AnyOf[0] != jsonschema.TrueSchema {
		t.Error("boolean schemas not kept by identity")
	}
	want := string(Marshal(s))
	b, _ := c.Properties.Get("b")
	b.Items.Enum = append(b.Items.Enum[:0], "y")
	*b.MinItems = 9
	c.Required[0] = "a"
	c.AnyOf[1].Type = "string"
	c.Definitions["T"].Ref = ""
	c.Default = append(c.Default.([]any)[:0], "w")
	c.Extras["x-k"] = 2
	c.Properties.Set("c", &jsonschema.Schema{})
	if got := string(Marshal(s)); got != want {
		t.Errorf("changing the clone changed the original:\n got %s\nwant %s", got, want)
	}
	if Clone(nil) != nil {
		t.Error("clone of nil is not nil")
	}
}

// A named type is built once and copied at its other uses, but only if
// building it found no problem: a problem positioned at the use is reported
// at every use, and what a use changes stays in that use.
func TestSchemaMemo(t *testing.T) {
	g, errs, scope := loadSchemaPkg(t, `package p

// Z is complex.
type Z complex64

// Tags are tags.
type Tags []string

// Item is one.
type Item struct {
	// T doc.
	T Tags `+"`json:\"t\" jsonschema:\"maxLength=3\"`"+`
	U Tags `+"`json:\"u\"`"+`
}

// Both uses Z twice and Item twice.
type Both struct {
	A Z
	B Z
	I Item
	J *Item `+"`jsonschema:\"description=J.\"`"+`
}
`)
	both := scope.Lookup("Both").Type()
	item := scope.Lookup("Item").Type()
	first := string(Marshal(g.schemaOf(item)))
	s := g.schemaOf(both)
	if len(errs.List) != 2 || errs.List[0].Pos == errs.List[1].Pos {
		t.Errorf("want the complex type reported at both uses, got %v", errs.List)
	}
	i, _ := s.Properties.Get("I")
	j, _ := s.Properties.Get("J")
	if got := string(Marshal(i)); got != first {
		t.Errorf("second use of Item:\n got %s\nwant %s", got, first)
	}
	if i.Description != "Item is one." || j.Description != "J." {
		t.Errorf("descriptions: %q, %q", i.Description, j.Description)
	}
	if again := string(Marshal(g.schemaOf(item))); again != first {
		t.Errorf("Item changed by its uses:\n got %s\nwant %s", again, first)
	}
	tp, _ := i.Properties.Get("t")
	u, _ := i.Properties.Get("u")
	tp, u = NonNull(tp), NonNull(u) // nil slices are null
	if tp.Items.MaxLength == nil || u.Items.MaxLength != nil {
		t.Errorf("the tag of T reached U: %s", Marshal(i))
	}
}
