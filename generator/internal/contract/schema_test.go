package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSchemaNumbersExact: bounds compare and print as written, however
// large: the int64 limits are not rounded to a float64, and two bounds a
// float64 cannot tell apart still differ.
func TestSchemaNumbersExact(t *testing.T) {
	i64 := json.RawMessage(`{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`)
	if got, want := shapeOf(i64), `{"maximum":9223372036854775807,"minimum":-9223372036854775808,"type":"integer"}`; got != want {
		t.Errorf("shape of an int64 schema:\n got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		name, old, new, want string
		narrower, wider      bool
	}{
		{"maximum lowered by one past 2^53", `{"maximum":9223372036854775807}`, `{"maximum":9223372036854775806}`,
			"maximum 9223372036854775807 -> maximum 9223372036854775806", true, false},
		{"minimum lowered by one past 2^53", `{"minimum":-9223372036854775807}`, `{"minimum":-9223372036854775808}`,
			"minimum -9223372036854775807 -> minimum -9223372036854775808", false, true},
		{"a decimal bound", `{"minimum":0.1}`, `{"minimum":0.25}`, "minimum 0.1 -> minimum 0.25", true, false},
		{"an exponent", `{"maxLength":1e3}`, `{"maxLength":1000}`, "", false, false},
		{"multipleOf exact", `{"multipleOf":0.1}`, `{"multipleOf":0.10000000000000001}`,
			"multipleOf 0.1 -> multipleOf 0.10000000000000001", true, false},
	} {
		changes := compareSchemas(json.RawMessage(c.old), json.RawMessage(c.new), nil, nil)
		var got []string
		var narrower, wider bool
		for _, ch := range changes {
			got = append(got, ch.old+" -> "+ch.new)
			narrower, wider = narrower || ch.narrower, wider || ch.wider
		}
		if strings.Join(got, "; ") != c.want || narrower != c.narrower || wider != c.wider {
			t.Errorf("%s: %q narrower=%v wider=%v, want %q narrower=%v wider=%v", c.name, got, narrower, wider, c.want, c.narrower, c.wider)
		}
	}
	enum := compareSchemas(json.RawMessage(`{"enum":[9007199254740993]}`), json.RawMessage(`{"enum":[9007199254740992]}`), nil, nil)
	if len(enum) != 2 || !strings.Contains(enum[0].new, "without 9007199254740993") {
		t.Errorf("an enum value past 2^53 replaced: %+v, want it removed and the other added", enum)
	}
}
