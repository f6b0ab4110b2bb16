// Package randjson makes random values of Go types, of the kinds
// encoding/json reads and writes, for the harnesses that check generated
// JSON code against encoding/json (testdata/resultrun, testdata/encoderun).
// The generator's runGeneratedTests writes it into their module.
package randjson

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
)

// Values makes random values.
type Values struct {
	// Types set a value of the types they name, which the harness makes
	// itself (times, big numbers, raw JSON): v is the zero value, settable.
	Types map[reflect.Type]func(r *rand.Rand, v reflect.Value)
	// Others make values, besides those encoding/json decodes into an any,
	// that an interface may hold: types that marshal themselves.
	Others []func(r *rand.Rand) any
}

// Value returns a random value of t.
func (vs *Values) Value(r *rand.Rand, t reflect.Type) reflect.Value { return vs.value(r, t, 0) }

// value returns a random value of t; depth bounds recursion.
func (vs *Values) value(r *rand.Rand, t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	if set := vs.Types[t]; set != nil {
		set(r, v)
		return v
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if r.IntN(3) > 0 {
			v.SetInt(int64(r.Uint64()) >> (64 - t.Bits()) >> r.IntN(t.Bits()))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if r.IntN(3) > 0 {
			v.SetUint(r.Uint64() >> (64 - t.Bits()) >> r.IntN(t.Bits()))
		}
	case reflect.Float32, reflect.Float64:
		if r.IntN(4) > 0 {
			f := r.NormFloat64() * math.Pow(10, float64(r.IntN(60)-30))
			if t.Kind() == reflect.Float32 && math.Abs(f) > math.MaxFloat32 {
				f = 0
			}
			v.SetFloat(f)
		}
	case reflect.String:
		v.SetString(String(r))
	case reflect.Slice:
		if r.IntN(5) == 0 || depth > 3 {
			return v
		}
		n := r.IntN(4)
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			s.Index(i).Set(vs.value(r, t.Elem(), depth+1))
		}
		v.Set(s)
	case reflect.Array:
		for i := range t.Len() {
			v.Index(i).Set(vs.value(r, t.Elem(), depth+1))
		}
	case reflect.Map:
		if r.IntN(5) == 0 || depth > 3 {
			return v
		}
		m := reflect.MakeMap(t)
		for range r.IntN(5) {
			m.SetMapIndex(vs.value(r, t.Key(), depth+1), vs.value(r, t.Elem(), depth+1))
		}
		v.Set(m)
	case reflect.Pointer:
		if r.IntN(3) == 0 || depth > 3 {
			return v
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(vs.value(r, t.Elem(), depth+1))
		v.Set(p)
	case reflect.Interface:
		if a := vs.any(r, depth); a != nil {
			v.Set(reflect.ValueOf(a))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				v.Field(i).Set(vs.value(r, f.Type, depth+1))
			}
		}
	}
	return v
}

// String returns a random string: ASCII, other scripts, what JSON escapes
// (quotes, backslashes, controls, U+2028), what encoding/json escapes as
// HTML, and invalid UTF-8.
func String(r *rand.Rand) string {
	parts := []string{"a", "Zz", "é", "日本", "\"", "\\", "<&>", "\u2028", "\u2029", "\t", "\x01", "\b", "\f", "\x7f", "😀", " ", "\xff", "\xe2\x80"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// any returns a value as encoding/json decodes one into an any, or one of
// Others.
func (vs *Values) any(r *rand.Rand, depth int) any {
	k := r.IntN(6 + len(vs.Others))
	if depth > 3 {
		k %= 4
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 1
	case 2:
		return r.NormFloat64() * 100
	case 3:
		return String(r)
	case 4:
		s := []any{}
		for range r.IntN(3) {
			s = append(s, vs.any(r, depth+1))
		}
		return s
	case 5:
		m := map[string]any{}
		for range r.IntN(3) {
			m[String(r)] = vs.any(r, depth+1)
		}
		return m
	}
	return vs.Others[k-6](r)
}
