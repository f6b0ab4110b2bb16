package rpcimpl

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// marshal is what encoding/json writes for v, or "error".
func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "error"
	}
	return string(b)
}

// encoded is what f appends after a prefix, "error" when it fails as
// EncodeFailed recognises.
func encoded(t *testing.T, f func([]byte) []byte) (out string) {
	t.Helper()
	defer func() {
		if EncodeFailed(recover()) {
			out = "error"
		}
	}()
	b := f([]byte("prefix"))
	if !bytes.HasPrefix(b, []byte("prefix")) {
		t.Fatalf("%q lost its prefix", b)
	}
	return string(b[len("prefix"):])
}

var stringParts = []string{"a", "plain ascii text", "é", "日本", "😀", "\"", "\\", "<", ">", "&", "\u2028", "\u2029",
	"\x00", "\x01", "\b", "\f", "\n", "\r", "\t", "\x1f", " ", "\x7f", "\xff", "\xe2\x80", "\xed\xa0\x80", "\ufffd", "/"}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(stringParts[r.IntN(len(stringParts))])
	}
	return b.String()
}

// TestAppendString writes strings as encoding/json does, HTML escaping
// included, and with the ",string" option.
func TestAppendString(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := append([]string{"", strings.Repeat("x", 17), strings.Repeat("a<", 9)}, stringParts...)
	for range 3000 {
		texts = append(texts, randomText(r))
	}
	for _, s := range texts {
		if got, want := encoded(t, func(b []byte) []byte { return AppendString(b, s) }), marshal(s); got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got, want := encoded(t, func(b []byte) []byte { return AppendQuotedString(b, s) }), marshalQuoted(s); got != want {
			t.Fatalf("AppendQuotedString(%q) = %s, want %s", s, got, want)
		}
	}
}

// marshalQuoted returns how encoding/json writes s in a field with the
// ",string" option.
func marshalQuoted(s string) string {
	quoted := struct {
		S string `json:",string"`
	}{s}
	return strings.TrimSuffix(strings.TrimPrefix(marshal(quoted), `{"S":`), "}")
}

// FuzzAppendString compares AppendString and AppendQuotedString with
// encoding/json.
func FuzzAppendString(f *testing.F) {
	for _, s := range stringParts {
		f.Add(s + "12345678<")
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := encoded(t, func(b []byte) []byte { return AppendString(b, s) }), marshal(s); got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got, want := encoded(t, func(b []byte) []byte { return AppendQuotedString(b, s) }), marshalQuoted(s); got != want {
			t.Fatalf("AppendQuotedString(%q) = %s, want %s", s, got, want)
		}
	})
}

// TestAppendFloat writes floats as encoding/json does: 'e' below 1e-6
// and from 1e21, the exponent without a leading zero; NaN and the
// infinities fail.
func TestAppendFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 1e-6, 1e-7, 9.999999e-7, 1e20, 1e21, 1e100, 5e-324, math.MaxFloat64,
		float64(math.MaxFloat32), float64(math.SmallestNonzeroFloat32), 1e-9, 1.5e-10, 0.1, 1.0 / 3, math.NaN(), math.Inf(1), math.Inf(-1)}
	for range 5000 {
		floats = append(floats, math.Float64frombits(r.Uint64()), r.NormFloat64()*math.Pow(10, float64(r.IntN(80)-40)))
	}
	for _, f := range floats {
		if got, want := encoded(t, func(b []byte) []byte { return AppendFloat64(b, f) }), marshal(f); got != want {
			t.Fatalf("AppendFloat64(%v) = %s, want %s", f, got, want)
		}
		f32 := float32(f)
		if got, want := encoded(t, func(b []byte) []byte { return AppendFloat32(b, f32) }), marshal(f32); got != want {
			t.Fatalf("AppendFloat32(%v) = %s, want %s", f32, got, want)
		}
	}
}

// TestAppendValues writes bytes, times, raw messages and numbers as
// encoding/json does, and fails where it does.
func TestAppendValues(t *testing.T) {
	for _, p := range [][]byte{nil, {}, {0}, {0xff, 0xfe, 0xfd}, bytes.Repeat([]byte("abc"), 100)} {
		if got, want := encoded(t, func(b []byte) []byte { return AppendBytes(b, p) }), marshal(p); got != want {
			t.Errorf("AppendBytes(%v) = %s, want %s", p, got, want)
		}
	}
	for _, tm := range []time.Time{{}, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", 23*3600+59*60)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("far", 24*3600)),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("near", -(23*3600+30*60))), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("s", 30))} {
		if got, want := encoded(t, func(b []byte) []byte { return AppendTime(b, tm) }), marshal(tm); got != want {
			t.Errorf("AppendTime(%v) = %s, want %s", tm, got, want)
		}
	}
	for _, m := range []json.RawMessage{nil, json.RawMessage(`null`), json.RawMessage(`{"a":[1,2,"x"]}`), json.RawMessage(" { \"a b\" :\t[ 1 ,\n2 ] } "),
		json.RawMessage(`"<&>"`), json.RawMessage("\"\u2028\""), json.RawMessage(`"a\"<"`), json.RawMessage(`{"a":`), json.RawMessage(``), json.RawMessage(`1 2`), json.RawMessage(`"\u003c"`)} {
		if got, want := encoded(t, func(b []byte) []byte { return AppendRawMessage(b, m) }), marshal(m); got != want {
			t.Errorf("AppendRawMessage(%q) = %s, want %s", m, got, want)
		}
	}
	for _, n := range []json.Number{"", "0", "-0", "12", "-1.5e+10", "1E5", "01", "1.", ".5", "1e", "1e+", "-", "+1", "1.5.5", "0x10", "1e5x"} {
		if got, want := encoded(t, func(b []byte) []byte { return AppendNumber(b, n) }), marshal(n); got != want {
			t.Errorf("AppendNumber(%q) = %s, want %s", n, got, want)
		}
	}
}

// TestAppendAny writes what encoding/json writes, a MarshalJSON on the
// pointer called when given the address, and fails where it does.
func TestAppendAny(t *testing.T) {
	n := new(big.Int).Lsh(big.NewInt(3), 80)
	for _, v := range []any{nil, 1.5, "<&>\u2028", map[string]any{"b": 1, "a": []any{nil, true}}, n, *n, struct{ B big.Int }{*n},
		&struct{ B big.Int }{*n}, json.RawMessage(" [1, \"<\"] "), math.NaN(), func() {}, map[bool]int{true: 1}} {
		if got, want := encoded(t, func(b []byte) []byte { return AppendAny(b, v) }), marshal(v); got != want {
			t.Errorf("AppendAny(%#v) = %s, want %s", v, got, want)
		}
	}
}

// TestEncodeFailedPanics: a panic other than a piece's goes on.
func TestEncodeFailedPanics(t *testing.T) {
	if EncodeFailed(nil) {
		t.Error("EncodeFailed(nil) = true")
	}
	defer func() {
		if v := recover(); v != "other" {
			t.Errorf("recovered %v, want the other panic", v)
		}
	}()
	EncodeFailed("other")
	t.Error("EncodeFailed returned on another panic")
}
