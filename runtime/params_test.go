package runtime_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

type Embedded struct {
	Extra string `json:"extra"`
}

type point struct {
	Embedded
	X    int    `json:"x"`
	Y    int    `json:"y,omitempty"`
	Name string // untagged: key "Name"
	Skip int    `json:"-"`
}

func TestDecodeParams(t *testing.T) {
	cases := []struct {
		raw     string
		want    point
		wantErr string
	}{
		{raw: ``, want: point{}},
		{raw: `null`, want: point{}},
		{raw: `{"x":1,"y":2}`, want: point{X: 1, Y: 2}},
		{raw: `{"X":1}`, want: point{X: 1}}, // case-insensitive, as encoding/json
		{raw: `{"extra":"e","Name":"n"}`, want: point{Embedded: Embedded{"e"}, Name: "n"}},
		{raw: `[1,2,"n"]`, want: point{X: 1, Y: 2, Name: "n"}},
		{raw: `{"x":"one"}`, wantErr: `invalid params: "x": cannot use string as int`},
		{raw: `{"x":1,"z":2}`, wantErr: `invalid params: unknown field "z" (valid: "extra", "x", "y", "Name")`},
		{raw: `{"Skip":1}`, wantErr: `invalid params: unknown field "Skip" (valid: "extra", "x", "y", "Name")`},
		{raw: `[1,2]`, wantErr: `invalid params: expected 3 positional params, got 2`},
		{raw: `[1,2,3,4]`, wantErr: `invalid params: expected 3 positional params, got 4`},
		{raw: `[1,"two",""]`, wantErr: `invalid params: position 2: cannot use string as int`},
		{raw: `"str"`, wantErr: `invalid params: params must be an object or an array`},
	}
	for _, tc := range cases {
		var p point
		err := runtime.DecodeParams(json.RawMessage(tc.raw), &p, &p.X, &p.Y, &p.Name)
		if tc.wantErr != "" {
			e := rpctest.WantError(t, err, runtime.CodeInvalidParams)
			if e.Message != tc.wantErr {
				t.Errorf("%s: message %q, want %q", tc.raw, e.Message, tc.wantErr)
			}
			continue
		}
		if err != nil || p != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.raw, p, err, tc.want)
		}
	}
}

func TestDecodeParamsNamesPositions(t *testing.T) {
	var p struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	err := runtime.DecodeParams(json.RawMessage(`[1,"x"]`), &p, &p.A, &p.B)
	if e := rpctest.WantError(t, err, runtime.CodeInvalidParams); e.Message != `invalid params: "b" (position 2): cannot use string as int` {
		t.Errorf("message %q", e.Message)
	}
}

func TestDecodeParamsNoParams(t *testing.T) {
	for _, raw := range []string{``, `{}`, `[]`, `null`} {
		if err := runtime.DecodeParams(json.RawMessage(raw), nil); err != nil {
			t.Errorf("%q: %v", raw, err)
		}
	}
	err := runtime.DecodeParams(json.RawMessage(`{"a":1}`), nil)
	if e := rpctest.WantError(t, err, runtime.CodeInvalidParams); e.Message != `invalid params: unknown field "a" (the method takes no params)` {
		t.Errorf("message %q", e.Message)
	}
}

func TestEncodeResult(t *testing.T) {
	raw, err := runtime.EncodeResult(map[string]int{"n": 1})
	if err != nil || string(raw) != `{"n":1}` {
		t.Errorf("got %s, %v", raw, err)
	}
	_, err = runtime.EncodeResult(make(chan int))
	rpctest.WantError(t, err, runtime.CodeInternalError)
}

func TestID(t *testing.T) {
	for _, tc := range []struct {
		id   runtime.ID
		want string
	}{{runtime.Int64ID(7), "7"}, {runtime.StringID(`a"b`), `"a\"b"`}, {runtime.ID{}, "null"}} {
		b, err := json.Marshal(tc.id)
		if err != nil || string(b) != tc.want {
			t.Errorf("marshal %v: %s, %v", tc.id, b, err)
		}
		var back runtime.ID
		if err := json.Unmarshal(b, &back); err != nil || back != tc.id {
			t.Errorf("unmarshal %s: %v, %v", b, back, err)
		}
	}
	var id runtime.ID
	if err := json.Unmarshal([]byte(`{}`), &id); err == nil {
		t.Error("an object id was accepted")
	}
}

// TestIDText: an id read from JSON is written back byte for byte, and equals
// (==) Int64ID of its number exactly when it is an int64 written as Go writes
// one; Int64ID allocates nothing.
func TestIDText(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int64
		isN  bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"-7", -7, true}, {"100", 100, true}, {"123456789", 123456789, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"12345678901234567890", 0, false}, {"-0", 0, false}, {"1.0", 1, false}, {"1e3", 1000, false},
		{"0.5", 0, false}, {`"7"`, 7, false}, {`"a\u0062"`, 0, false},
	} {
		var id runtime.ID
		if err := json.Unmarshal([]byte(tc.text), &id); err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		b, err := json.Marshal(id)
		if err != nil || string(b) != tc.text || id.String() != tc.text || id.IsZero() {
			t.Errorf("%s: marshalled %s (%v), String %q, IsZero %v", tc.text, b, err, id.String(), id.IsZero())
		}
		if eq := id == runtime.Int64ID(tc.n); eq != tc.isN {
			t.Errorf("%s == Int64ID(%d): %v, want %v", tc.text, tc.n, eq, tc.isN)
		}
		r, err := runtime.ParseResponse([]byte(`{"jsonrpc":"2.0","id":` + tc.text + `,"result":1}`))
		if err != nil || r.ID != id {
			t.Errorf("%s: a response's id %v (%v), want the unmarshalled one", tc.text, r.ID, err)
		}
		if got := string(runtime.AppendErrorResponse(nil, id, runtime.NewError(1, "x"))); !strings.Contains(got, `"id":`+tc.text+`,`) {
			t.Errorf("%s: error response %s", tc.text, got)
		}
	}
	var id runtime.ID
	if allocs := testing.AllocsPerRun(100, func() { id = runtime.Int64ID(123456789) }); allocs != 0 || id.String() != "123456789" {
		t.Errorf("Int64ID: %v allocations, %s", allocs, id)
	}
}

func BenchmarkDecodeParams(b *testing.B) {
	raw := json.RawMessage(`{"a":12,"b":30}`)
	b.ReportAllocs()
	for b.Loop() {
		var p addParams
		if err := runtime.DecodeParams(raw, &p, &p.A, &p.B); err != nil {
			b.Fatal(err)
		}
	}
}
