package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkCases are inputs on which Check must agree with utf8.Valid, json.Valid and
// DepthExceeds; they seed FuzzCheck too.
var checkCases = []string{
	``, ` `, `{}`, `[]`, ` {"a":1} `, `{"a":1,}`, `{,}`, `[1,]`, `[,1]`, `{"a" 1}`, `{"a":}`, `{1:2}`,
	`"x"`, `"\u00e9\n\"\\\/\b\f\r\t"`, `"\u12"`, `"\x"`, "\"\x01\"", "\"\xff\"", "\"\xed\xa0\x80\"", "\"é\"",
	`0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `-1.5e10`, `.5`, `+1`, `1 2`,
	`true`, `tru`, `truex`, `false`, `null`, `nul`, `[true,false,null]`,
	`{"jsonrpc":"2.0","method":"m","params":{"a":[1,{"b":"c"}]},"id":1}`,
	`[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]`, `[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]`,
	`{"a":[{"b":[{"c":[{"d":[{"e":[{"f":[{"g":[{"h":[{}]}]}]}]}]}]}]}]}`, `[{]`, `{[}`, `{"a":1]`, `[1}`,
	"{\"a\":1}\xff", "\xff", `"unterminated`, `{"a":"b"`, `[` + strings.Repeat(`"x",`, 10) + `1]`,
}

func reference(b []byte, limit int) Status {
	if !utf8.Valid(b) || !json.Valid(b) {
		return Invalid
	}
	if depthExceeds(b, limit) {
		return TooDeep
	}
	return Valid
}

func TestCheckAgreesWithTheStandardLibrary(t *testing.T) {
	deep := strings.Repeat("[", 3000) + strings.Repeat("]", 3000)
	for _, s := range append(checkCases, deep, deep[:5999], strings.Repeat(`{"a":`, 2000)+"1"+strings.Repeat("}", 2000)) {
		for _, limit := range []int{1, 8, 18, 2500, 5000} {
			if got, want := Check([]byte(s), limit, nil), reference([]byte(s), limit); got != want {
				t.Errorf("Check(%.40q, %d) = %d, want %d", s, limit, got, want)
			}
		}
	}
}

type member struct{ key, val string }

func members(b []byte) []member {
	var got []member
	Check(b, 100, func(k, v []byte) { got = append(got, member{string(k), string(v)}) })
	return got
}

func TestCheckReportsTopLevelMembers(t *testing.T) {
	got := members([]byte(` { "jsonrpc" : "2.0" , "params":{"a":[1,{"b":2}],"c":"d"},"id":[],"m\u0065":{} , "n":null}`))
	want := []member{{"jsonrpc", `"2.0"`}, {"params", `{"a":[1,{"b":2}],"c":"d"}`}, {"id", `[]`}, {`m\u0065`, `{}`}, {"n", "null"}}
	if len(got) != len(want) {
		t.Fatalf("members = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d = %q, want %q", i, got[i], want[i])
		}
	}
	if got := members([]byte(`[{"a":1},{"b":2}]`)); len(got) != 0 {
		t.Errorf("an array reported members %q", got)
	}
}

// FuzzCheck holds Check to the standard library's answers, and its members to the
// ones a Cursor slices out of the same object.
func FuzzCheck(f *testing.F) {
	for _, s := range checkCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := Check(b, 4, nil)
		if want := reference(b, 4); got != want {
			t.Fatalf("Check(%q) = %d, want %d", b, got, want)
		}
		if got == Invalid || FirstByte(b) != '{' {
			return
		}
		ms := members(b)
		c, _ := OpenObject(b)
		for i := 0; ; i++ {
			k, v, ok := c.NextMember()
			if !ok {
				if i != len(ms) {
					t.Fatalf("%q: Check reported %d members, the cursor %d", b, len(ms), i)
				}
				return
			}
			if i >= len(ms) || ms[i] != (member{string(k), string(v)}) {
				t.Fatalf("%q: member %d is %q %q, Check reported %q", b, i, k, v, ms)
			}
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("the quick brown fox ", 52) + `"}}}`)
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if Check(msg, 64, func(k, v []byte) {}) != Valid {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if !utf8.Valid(msg) || !json.Valid(msg) || depthExceeds(msg, 64) {
				b.Fatal("invalid")
			}
			c, _ := OpenObject(msg)
			for {
				if _, _, ok := c.NextMember(); !ok {
					break
				}
			}
		}
	})
}

// depthExceeds, the depth check Check replaced, reports whether containers in b nest deeper than limit.
func depthExceeds(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			j := SkipString(b, i)
			if j < 0 {
				return false
			}
			i = j - 1
		case '{', '[':
			depth++
			if depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

func TestIsJSON(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	limit := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	for _, s := range append(checkCases, deep, deep[1:], limit, "["+limit+"]", `{"a":`+limit+`}`) {
		if got, want := IsJSON([]byte(s)), utf8.Valid([]byte(s)) && json.Valid([]byte(s)); got != want {
			t.Errorf("IsJSON(%.40q) = %v, want %v", s, got, want)
		}
	}
}
