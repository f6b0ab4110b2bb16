package rpcimpl

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Bool reads true or false.
func (d *Decoder) Bool() bool {
	switch d.begin() {
	case 0:
		return false
	case 't':
		return d.literal("true")
	case 'f':
		d.literal("false")
		return false
	}
	d.typeError("a boolean")
	return false
}

// Int reads an integer that fits an int.
func (d *Decoder) Int() int { return int(d.signed(math.MinInt, math.MaxInt)) }

// Int8 reads an integer that fits an int8.
func (d *Decoder) Int8() int8 { return int8(d.signed(math.MinInt8, math.MaxInt8)) }

// Int16 reads an integer that fits an int16.
func (d *Decoder) Int16() int16 { return int16(d.signed(math.MinInt16, math.MaxInt16)) }

// Int32 reads an integer that fits an int32.
func (d *Decoder) Int32() int32 { return int32(d.signed(math.MinInt32, math.MaxInt32)) }

// Int64 reads an integer that fits an int64.
func (d *Decoder) Int64() int64 { return d.signed(math.MinInt64, math.MaxInt64) }

// Uint reads a non-negative integer that fits a uint.
func (d *Decoder) Uint() uint { return uint(d.unsigned(math.MaxUint)) }

// Uint8 reads a non-negative integer that fits a uint8.
func (d *Decoder) Uint8() uint8 { return uint8(d.unsigned(math.MaxUint8)) }

// Uint16 reads a non-negative integer that fits a uint16.
func (d *Decoder) Uint16() uint16 { return uint16(d.unsigned(math.MaxUint16)) }

// Uint32 reads a non-negative integer that fits a uint32.
func (d *Decoder) Uint32() uint32 { return uint32(d.unsigned(math.MaxUint32)) }

// Uint64 reads a non-negative integer that fits a uint64.
func (d *Decoder) Uint64() uint64 { return d.unsigned(math.MaxUint64) }

// Uintptr reads a non-negative integer that fits a uintptr.
func (d *Decoder) Uintptr() uintptr { return uintptr(d.unsigned(math.MaxUint)) }

// Float64 reads a number that fits a float64.
func (d *Decoder) Float64() float64 { return d.float(64, math.MaxFloat64) }

// Float32 reads a number that fits a float32 (rounded to the nearest).
func (d *Decoder) Float32() float32 { return float32(d.float(32, math.MaxFloat32)) }

// Number reads a number and returns its text, as encoding/json reads a
// json.Number (which it writes as that text, a number).
func (d *Decoder) Number() json.Number {
	lit, _ := d.number("a number")
	return json.Number(lit)
}

func (d *Decoder) signed(lo, hi int64) int64 {
	lit, simple := d.number("an integer")
	if lit == nil {
		return 0
	}
	neg, mag, kind := parseIntegral(lit, simple)
	switch {
	case kind == numFraction:
		d.fail("expected an integer, got " + describe(lit))
	case kind == numInteger && neg && mag <= uint64(-(lo+1))+1:
		return int64(-mag)
	case kind == numInteger && !neg && mag <= uint64(hi):
		return int64(mag)
	default:
		d.fail("expected an integer between " + strconv.FormatInt(lo, 10) + " and " +
			strconv.FormatInt(hi, 10) + ", got " + describe(lit))
	}
	return 0
}

func (d *Decoder) unsigned(hi uint64) uint64 {
	lit, simple := d.number("an integer")
	if lit == nil {
		return 0
	}
	neg, mag, kind := parseIntegral(lit, simple)
	switch {
	case kind == numFraction:
		d.fail("expected an integer, got " + describe(lit))
	case kind == numInteger && (!neg || mag == 0) && mag <= hi:
		return mag
	default:
		d.fail("expected an integer between 0 and " + strconv.FormatUint(hi, 10) + ", got " + describe(lit))
	}
	return 0
}

func (d *Decoder) float(bits int, limit float64) float64 {
	lit, _ := d.number("a number")
	if lit == nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(lit), bits)
	if err != nil {
		max := strconv.FormatFloat(limit, 'g', -1, bits)
		d.fail("expected a number between -" + max + " and " + max + ", got " + describe(lit))
		return 0
	}
	return f
}

// number reads a number and returns its text, or nil after a problem;
// simple reports that it has neither a fraction nor an exponent. want words
// the expected value for a type error: "a number" or "an integer".
func (d *Decoder) number(want string) (lit []byte, simple bool) {
	c := d.begin()
	if c != '-' && (c < '0' || c > '9') {
		if c != 0 {
			d.typeError(want)
		}
		return nil, false
	}
	b, i := d.buf, d.pos
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, d.badNumber()
	}
	simple = true
	if i < len(b) && b[i] == '.' {
		i++
		simple = false
		if !digits() {
			return nil, d.badNumber()
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		simple = false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, d.badNumber()
		}
	}
	if !endsValue(b, i) {
		return nil, d.badNumber()
	}
	lit, d.pos = b[d.pos:i], i
	return lit, simple
}

func (d *Decoder) badNumber() bool {
	d.syntaxError("invalid number")
	return false
}

// Kinds of JSON numbers, for reading integers.
const (
	numInteger  = iota // an integer whose magnitude fits a uint64
	numFraction        // not an integer
	numHuge            // an integer beyond a uint64
)

// parseIntegral returns the sign and magnitude of the JSON number lit and
// its kind; the magnitude is set for numInteger only.
func parseIntegral(lit []byte, simple bool) (neg bool, mag uint64, kind int) {
	if lit[0] == '-' {
		neg, lit = true, lit[1:]
	}
	var ok bool
	if simple {
		for _, c := range lit {
			if mag, ok = mulAdd(mag, c-'0'); !ok {
				return neg, 0, numHuge
			}
		}
		return neg, mag, numInteger
	}
	mant, exp := lit, 0
	if e := bytes.IndexAny(lit, "eE"); e >= 0 {
		mant, exp = lit[:e], exponent(lit[e+1:])
	}
	dot := len(mant)
	if i := bytes.IndexByte(mant, '.'); i >= 0 {
		dot = i
	}
	// The digit at index k of mant stands for 10^power(k).
	power := func(k int) int {
		if k < dot {
			return dot - k - 1 + exp
		}
		return dot - k + exp
	}
	first, last := -1, -1
	for k, c := range mant {
		if c >= '1' && c <= '9' {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	switch {
	case first < 0:
		return neg, 0, numInteger
	case power(last) < 0:
		return neg, 0, numFraction
	case power(first) >= 20:
		return neg, 0, numHuge
	}
	for k := first; k <= last; k++ {
		if mant[k] == '.' {
			continue
		}
		if mag, ok = mulAdd(mag, mant[k]-'0'); !ok {
			return neg, 0, numHuge
		}
	}
	for range power(last) {
		if mag, ok = mulAdd(mag, 0); !ok {
			return neg, 0, numHuge
		}
	}
	return neg, mag, numInteger
}

// mulAdd returns m*10 + digit, or false when that overflows a uint64.
func mulAdd(m uint64, digit byte) (uint64, bool) {
	if m > (math.MaxUint64-uint64(digit))/10 {
		return 0, false
	}
	return m*10 + uint64(digit), true
}

// exponent parses the exponent of a JSON number, saturating far beyond
// where any integer ends.
func exponent(b []byte) int {
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg, b = b[0] == '-', b[1:]
	}
	n := 0
	for _, c := range b {
		n = min(n*10+int(c-'0'), 100000)
	}
	if neg {
		return -n
	}
	return n
}

// Any reads any value as encoding/json decodes it into an interface{}:
// map[string]any, []any, float64, string, bool or nil.
func (d *Decoder) Any() any {
	switch c := d.begin(); c {
	case 0:
		return nil
	case '{':
		m := map[string]any{}
		if !d.open() {
			return nil
		}
		var key []byte
		for d.NextKey(&key) {
			// The key first: reading the value may reuse key's storage (an
			// escaped key of a nested object), and Go does not order a
			// conversion against the call on the right.
			k := string(key)
			m[k] = d.Any()
		}
		return m
	case '[':
		s := []any{}
		if !d.open() {
			return nil
		}
		for d.NextElem() {
			s = append(s, d.Any())
		}
		return s
	case '"':
		return d.String()
	case 't', 'f':
		return d.Bool()
	case 'n':
		d.literal("null")
		return nil
	default:
		return d.Float64()
	}
}

// RawMessage reads any value and returns a copy of its JSON text.
func (d *Decoder) RawMessage() json.RawMessage {
	raw := d.Raw()
	if raw == nil {
		return nil
	}
	return append(json.RawMessage(nil), raw...)
}

// Unmarshal reads the next value with encoding/json into v: the fallback
// for types that decode themselves (json.Unmarshaler, encoding.TextUnmarshaler).
func (d *Decoder) Unmarshal(v any) {
	raw := d.Raw()
	if raw == nil {
		return
	}
	if err := json.Unmarshal(raw, v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			d.fail("expected a value for Go type " + te.Type.String() + ", got " + describe(raw))
			return
		}
		d.fail(strings.TrimPrefix(err.Error(), "json: "))
	}
}
