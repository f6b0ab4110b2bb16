package rpcimpl_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

// read runs one Decoder read over in and returns its value and error text.
func read[T any](in string, f func(d *rpcimpl.Decoder) T) (T, string) {
	d := rpcimpl.NewDecoder([]byte(in))
	v := f(&d)
	if err := d.Finish(); err != nil {
		return v, strings.TrimPrefix(err.(*runtime.Error).Message, "invalid params: ")
	}
	return v, ""
}

func TestDecoderStrings(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{`"plain"`, "plain", ""},
		{`""`, "", ""},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t", ""},
		{`"\u0041\u00e9\u4e2d"`, "Aé中", ""},
		{`"\ud83d\ude00"`, "😀", ""},
		{`"\uD83D\uDE00 x"`, "😀 x", ""},
		{`"a\ud800b"`, "a\uFFFDb", ""},          // lone high surrogate
		{`"\udc00"`, "\uFFFD", ""},              // lone low surrogate
		{`"\ud800\u0041"`, "\uFFFDA", ""},       // high surrogate then no low one
		{`"\ud800\ud800\udc00"`, "\uFFFD𐀀", ""}, // a lone one, then a pair
		{`"日本語"`, "日本語", ""},
		{`"` + strings.Repeat(`\n`, 100) + `"`, strings.Repeat("\n", 100), ""},
		{"\"\xc3\x28\"", "", "invalid UTF-8 in a string"},
		{"\"\xed\xa0\x80\"", "", "invalid UTF-8 in a string"}, // a surrogate in UTF-8
		{`"\x"`, "", `malformed JSON at offset 1: invalid escape "\\x" in a string`},
		{`"\u12G4"`, "", `malformed JSON at offset 1: invalid \u escape in a string`},
		{`"abc`, "", "malformed JSON at offset 4: unexpected end of JSON input in a string"},
		{"\"a\tb\"", "", "malformed JSON at offset 2: control character in a string"},
		{`12`, "", "expected a string, got 12"},
		{`[1]`, "", "expected a string, got an array"},
		{`tru`, "", "malformed JSON at offset 0: invalid literal"},
	}
	for _, tc := range cases {
		got, err := read(tc.in, (*rpcimpl.Decoder).String)
		if got != tc.want || err != tc.err {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestDecoderIntegers(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		err  string
	}{
		{`0`, 0, ""}, {`-0`, 0, ""}, {`42`, 42, ""}, {`-42`, -42, ""},
		{`1e2`, 100, ""}, {`1E+2`, 100, ""}, {`1.0`, 1, ""}, {`-2.50e1`, -25, ""}, {`100e-2`, 1, ""},
		{`0.0e5`, 0, ""}, {`0e-999999999999`, 0, ""},
		{`9223372036854775807`, math.MaxInt64, ""},
		{`-9223372036854775808`, math.MinInt64, ""},
		{`9.223372036854775807e18`, math.MaxInt64, ""},
		{`9223372036854775808`, 0, "expected an integer between -9223372036854775808 and 9223372036854775807, got 9223372036854775808"},
		{`-9223372036854775809`, 0, "expected an integer between -9223372036854775808 and 9223372036854775807, got -9223372036854775809"},
		{`1e19`, 0, "expected an integer between -9223372036854775808 and 9223372036854775807, got 1e19"},
		{`1e999999999999999999`, 0, "expected an integer between -9223372036854775808 and 9223372036854775807, got 1e999999999999999999"},
		{`1.5`, 0, "expected an integer, got 1.5"},
		{`1e-1`, 0, "expected an integer, got 1e-1"},
		{`01`, 0, "malformed JSON at offset 0: invalid number"},
		{`1.`, 0, "malformed JSON at offset 0: invalid number"},
		{`-`, 0, "malformed JSON at offset 0: invalid number"},
		{`1e`, 0, "malformed JSON at offset 0: invalid number"},
		{`+1`, 0, "malformed JSON at offset 0: invalid character '+' looking for the beginning of a value"},
		{`1x`, 0, "malformed JSON at offset 0: invalid number"},
		{`"1"`, 0, `expected an integer, got "1"`},
		{`true`, 0, `expected an integer, got true`},
		{``, 0, "malformed JSON at offset 0: unexpected end of JSON input"},
	}
	for _, tc := range cases {
		got, err := read(tc.in, (*rpcimpl.Decoder).Int64)
		if got != tc.want || err != tc.err {
			t.Errorf("Int64 %s: got %d, %q; want %d, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	sized := []struct {
		in   string
		f    func(*rpcimpl.Decoder) int64
		want int64
		err  string
	}{
		{`127`, func(d *rpcimpl.Decoder) int64 { return int64(d.Int8()) }, 127, ""},
		{`-129`, func(d *rpcimpl.Decoder) int64 { return int64(d.Int8()) }, 0, "expected an integer between -128 and 127, got -129"},
		{`65535`, func(d *rpcimpl.Decoder) int64 { return int64(d.Uint16()) }, 65535, ""},
		{`65536`, func(d *rpcimpl.Decoder) int64 { return int64(d.Uint16()) }, 0, "expected an integer between 0 and 65535, got 65536"},
		{`-1`, func(d *rpcimpl.Decoder) int64 { return int64(d.Uint8()) }, 0, "expected an integer between 0 and 255, got -1"},
		{`-0`, func(d *rpcimpl.Decoder) int64 { return int64(d.Uint8()) }, 0, ""},
		{`-2147483648`, func(d *rpcimpl.Decoder) int64 { return int64(d.Int32()) }, math.MinInt32, ""},
		{`4294967295`, func(d *rpcimpl.Decoder) int64 { return int64(d.Uint32()) }, math.MaxUint32, ""},
	}
	for _, tc := range sized {
		got, err := read(tc.in, tc.f)
		if got != tc.want || err != tc.err {
			t.Errorf("%s: got %d, %q; want %d, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	u, err := read(`18446744073709551615`, (*rpcimpl.Decoder).Uint64)
	if u != math.MaxUint64 || err != "" {
		t.Errorf("Uint64 max: %d, %q", u, err)
	}
	u, err = read(`1.8446744073709551616e19`, (*rpcimpl.Decoder).Uint64)
	if err != "expected an integer between 0 and 18446744073709551615, got 1.8446744073709551616e19" {
		t.Errorf("Uint64 max+1: %d, %q", u, err)
	}
}

func TestDecoderFloatsAndOthers(t *testing.T) {
	if f, err := read(`-0`, (*rpcimpl.Decoder).Float64); err != "" || !math.Signbit(f) {
		t.Errorf("-0: %v %q", f, err)
	}
	if f, err := read(`1.5e300`, (*rpcimpl.Decoder).Float64); err != "" || f != 1.5e300 {
		t.Errorf("1.5e300: %v %q", f, err)
	}
	if _, err := read(`1e400`, (*rpcimpl.Decoder).Float64); err != "expected a number between -1.7976931348623157e+308 and 1.7976931348623157e+308, got 1e400" {
		t.Errorf("1e400: %q", err)
	}
	if _, err := read(`1e39`, (*rpcimpl.Decoder).Float32); err != "expected a number between -3.4028235e+38 and 3.4028235e+38, got 1e39" {
		t.Errorf("float32 1e39: %q", err)
	}
	if f, err := read(`0.1`, (*rpcimpl.Decoder).Float32); err != "" || f != float32(0.1) {
		t.Errorf("float32 0.1: %v %q", f, err)
	}
	if b, err := read(` true `, (*rpcimpl.Decoder).Bool); !b || err != "" {
		t.Errorf("true: %v %q", b, err)
	}
	if _, err := read(`"true"`, (*rpcimpl.Decoder).Bool); err != `expected a boolean, got "true"` {
		t.Errorf(`"true": %q`, err)
	}
	if b, err := read(`"aGVsbG8="`, (*rpcimpl.Decoder).Bytes); string(b) != "hello" || err != "" {
		t.Errorf("bytes: %q %q", b, err)
	}
	if b, err := read(`null`, (*rpcimpl.Decoder).Bytes); b != nil || err != "" {
		t.Errorf("null bytes: %q %q", b, err)
	}
	if _, err := read(`"!!"`, (*rpcimpl.Decoder).Bytes); err != `expected a base64 string, got "!!"` {
		t.Errorf("bad base64: %q", err)
	}
	if tm, err := read(`"2024-05-06T07:08:09.5+02:00"`, (*rpcimpl.Decoder).Time); err != "" || !tm.Equal(time.Date(2024, 5, 6, 5, 8, 9, 5e8, time.UTC)) {
		t.Errorf("time: %v %q", tm, err)
	}
	if _, err := read(`"yesterday"`, (*rpcimpl.Decoder).Time); err != `expected a date-time string (RFC 3339), got "yesterday"` {
		t.Errorf("bad time: %q", err)
	}
	if r, err := read(` {"a": [1, "x"]} `, (*rpcimpl.Decoder).RawMessage); string(r) != `{"a": [1, "x"]}` || err != "" {
		t.Errorf("raw: %s %q", r, err)
	}
	if _, err := read(`{"a": [1, "x"}`, (*rpcimpl.Decoder).RawMessage); err != `"a": malformed JSON at offset 13: expected ',' or ']' after an array element` {
		t.Errorf("bad raw: %q", err)
	}
	var dur jsonDuration
	if _, err := read(`"1m30s"`, func(d *rpcimpl.Decoder) any { d.Unmarshal(&dur); return nil }); err != "" || dur != jsonDuration(90*time.Second) {
		t.Errorf("unmarshal: %v %q", dur, err)
	}
	if _, err := read(`"soon"`, func(d *rpcimpl.Decoder) any { d.Unmarshal(&dur); return nil }); err != `time: invalid duration "soon"` {
		t.Errorf("bad unmarshal: %q", err)
	}
	if v, err := read(`{"n":1,"s":["x",null,true]}`, (*rpcimpl.Decoder).Any); err != "" ||
		!reflect.DeepEqual(v, map[string]any{"n": 1.0, "s": []any{"x", nil, true}}) {
		t.Errorf("any: %#v %q", v, err)
	}
	deep := strings.Repeat("[", 129) + strings.Repeat("]", 129)
	if _, err := read(deep, (*rpcimpl.Decoder).Any); !strings.HasSuffix(err, "nested deeper than 128 levels") {
		t.Errorf("deep: %q", err)
	}
}

type jsonDuration time.Duration

func (j *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	d, err := time.ParseDuration(s)
	*j = jsonDuration(d)
	return err
}

func TestDecoderQuoted(t *testing.T) {
	quotedInt := func(d *rpcimpl.Decoder) int64 {
		var v int64
		if d.OpenQuoted() {
			v = d.Int64()
			d.CloseQuoted()
		}
		return v
	}
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{`"42"`, 42, ""},
		{`" 42 "`, 42, ""},
		{`42`, 0, "expected a string holding the value, got 42"},
		{`"4 2"`, 0, "expected a string holding only the value"},
		{`"x"`, 0, "malformed JSON at offset 0: invalid character 'x' looking for the beginning of a value"},
		{`"1.5"`, 0, "expected an integer, got 1.5"},
	} {
		got, err := read(tc.in, quotedInt)
		if err != tc.err || err == "" && got != tc.want {
			t.Errorf("quoted %s: got %d, %q; want %d, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestValidationHelpers(t *testing.T) {
	for _, tc := range []struct {
		v, m float64
		want bool
	}{{0.3, 0.1, true}, {10, 2.5, true}, {1, 3, false}, {0.35, 0.1, false}, {-4, 2, true}, {1e300, 1e-300, false}} {
		if got := rpcimpl.MultipleOf(tc.v, tc.m); got != tc.want {
			t.Errorf("MultipleOf(%v, %v) = %v", tc.v, tc.m, got)
		}
	}
	if rpcimpl.HasDuplicates([]string{"a", "b"}) || !rpcimpl.HasDuplicates([]int{1, 2, 1}) {
		t.Error("HasDuplicates on a short slice")
	}
	long := make([]int, 100)
	for i := range long {
		long[i] = i
	}
	if rpcimpl.HasDuplicates(long) {
		t.Error("HasDuplicates: false positive")
	}
	long[99] = 3
	if !rpcimpl.HasDuplicates(long) {
		t.Error("HasDuplicates: missed a duplicate")
	}
}

// TestDecoderNumber reads json.Number values: a JSON number's text, as
// encoding/json reads one, also quoted (",string").
func TestDecoderNumber(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{`0`, "0", ""},
		{`-1.5e300`, "-1.5e300", ""},
		{`18446744073709551616123`, "18446744073709551616123", ""},
		{`"12"`, "", `expected a number, got "12"`},
		{`null`, "", "expected a number, got null"},
		{`1.`, "", "malformed JSON at offset 0: invalid number"},
	}
	for _, tc := range cases {
		got, err := read(tc.in, (*rpcimpl.Decoder).Number)
		if string(got) != tc.want || err != tc.err {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	got, err := read(`"-7e3"`, func(d *rpcimpl.Decoder) json.Number {
		var n json.Number
		if d.OpenQuoted() {
			n = d.Number()
			d.CloseQuoted()
		}
		return n
	})
	if got != "-7e3" || err != "" {
		t.Errorf("quoted: got %q, %q", got, err)
	}
}

// TestNullParams tells the params that stand for a nil pointer to a
// struct from an object.
func TestNullParams(t *testing.T) {
	for in, want := range map[string]bool{
		"": true, "null": true, " null ": true, "[null]": true, "[ null ]": true,
		"{}": false, `{"a":1}`: false, "[{}]": false, "[]": false, "[null,null]": false, "[": false, "]": false,
	} {
		if got := rpcimpl.NullParams([]byte(in)); got != want {
			t.Errorf("NullParams(%q) = %v, want %v", in, got, want)
		}
	}
}
