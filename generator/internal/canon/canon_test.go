package canon

import (
	"math"
	"strings"
	"testing"
)

// TestNumbers: the number serializations of RFC 8785 Appendix B, given as
// the bits of the double.
func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	} {
		if got := string(AppendNumber(nil, math.Float64frombits(c.bits))); got != c.want {
			t.Errorf("%#016x: got %s, want %s", c.bits, got, c.want)
		}
	}
}

// TestJSON: RFC 8785's own examples (§3.2.2 and §3.2.3), and what the
// canonical form refuses.
func TestJSON(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{`{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`, `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`, ""},
		{`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}", ""},
		{`{"a": <1>}`, "", "invalid character"},
		{`{"a":1} 2`, "", "data after the value"},
		{`{"a":1,"b":{"c":1,"c":2}}`, "", `member "c" repeats`},
		{`[{"a":1},{"a":2}]`, `[{"a":1},{"a":2}]`, ""},
		{`{"a":[1,{"b":2}],"b":3}`, `{"a":[1,{"b":2}],"b":3}`, ""},
		{`1e400`, "", "not a finite double"},
		{`"<&>\u2028"`, "\"<&>\u2028\"", ""},
	} {
		got, err := JSON([]byte(c.in))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("JSON(%s) = %s, %v; want an error with %q", c.in, got, err, c.err)
		case c.err == "" && (err != nil || string(got) != c.want):
			t.Errorf("JSON(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

// TestToolDigest: the digest does not depend on the order or spacing of
// the descriptor's JSON, and changes with each thing the descriptor says.
func TestToolDigest(t *testing.T) {
	base := Tool{Name: "add", Description: "Add adds.", InputSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer"}}}`)}
	d0, size, err := base.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d0, "sha256:") || len(d0) != len("sha256:")+64 {
		t.Errorf("digest %s is not sha256:<64 hex>", d0)
	}
	if want := len(`{"description":"Add adds.","inputSchema":{"properties":{"a":{"type":"integer"}},"type":"object"},"name":"add"}`); size != want {
		t.Errorf("size %d, want %d", size, want)
	}
	reordered := base
	reordered.InputSchema = []byte("{ \"properties\": {\"a\": {\"type\": \"integer\"}},\n \"type\": \"object\" }")
	if d, _, _ := reordered.Digest(); d != d0 {
		t.Errorf("reordered schema: digest %s, want %s", d, d0)
	}
	for name, change := range map[string]func(*Tool){
		"name":        func(t *Tool) { t.Name = "plus" },
		"title":       func(t *Tool) { t.Title = "Add" },
		"description": func(t *Tool) { t.Description = "Add sums." },
		"input":       func(t *Tool) { t.InputSchema = []byte(`{"type":"object"}`) },
		"output":      func(t *Tool) { t.OutputSchema = []byte(`{"type":"object"}`) },
		"hint":        func(t *Tool) { t.Hints = map[string]bool{"readOnlyHint": true} },
		"hint false":  func(t *Tool) { t.Hints = map[string]bool{"readOnlyHint": false} },
	} {
		c := base
		change(&c)
		if d, _, _ := c.Digest(); d == d0 {
			t.Errorf("%s changed, digest did not", name)
		}
	}
}
