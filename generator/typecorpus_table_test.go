package generator

// The type corpus: every kind of Go type encoding/json carries, each a
// class of its own, grouped by theme into one package per group. For each
// class the corpus test declares a service whose methods take and return
// the class's type in every position (see corpusMethods) and round-trips
// the samples through it (typecorpus_test.go).

// corpusClass is one type of the corpus.
type corpusClass struct {
	name    string   // names the class's service (<name>Echo) and its holder (<name>Holder)
	typ     string   // the Go type, as written in the group's package
	samples []string // Go expressions of values of typ
	// key says that typ may key a map (encoding/json writes it as an
	// object's key).
	key bool
	// object says that typ is a struct encoding/json writes as an object
	// of its fields: as the one param of a method, it is the params object.
	object bool
	// anyValue says that typ's schema is, or holds, {}: any value. The
	// test refuses a schema without a keyword anywhere else, which would
	// say nothing of what travels.
	anyValue bool
	// skip lists methods of corpusMethods the class leaves out (Map: and
	// the holder's map field), which rpcgen refuses (err_types_*.txtar).
	skip []string
}

// corpusGroup is one package of the corpus.
type corpusGroup struct {
	name    string // the package, and the golden file testdata/typecorpus/<name>.txt
	doc     string
	imports []string
	decls   string            // declarations the classes need
	files   map[string]string // other files of the package (schemas), by name
	classes []corpusClass
}

// corpusPackages are packages of the corpus's module that groups import,
// by their path in it.
var corpusPackages = map[string]string{
	"foreign/money.go": `// Package foreign declares a type that writes its own JSON, for the
// corpus's group "encoded" to use from another package.
package foreign

import (
	"encoding/json"
	"fmt"
)

// Money is an amount in cents, written as a decimal string ("12.34").
type Money struct{ cents int64 }

// Cents returns m in cents.
func Cents(c int64) Money { return Money{c} }

// MarshalJSON writes m as "units.cents".
func (m Money) MarshalJSON() ([]byte, error) {
	return json.Marshal(fmt.Sprintf("%d.%02d", m.cents/100, m.cents%100))
}

// UnmarshalJSON reads "units.cents".
func (m *Money) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	var units, cents int64
	if _, err := fmt.Sscanf(s, "%d.%02d", &units, &cents); err != nil {
		return err
	}
	m.cents = units*100 + cents
	return nil
}
`,
}

var corpusGroups = []corpusGroup{
	{
		name:    "scalars",
		doc:     "Booleans, strings and numbers, and named types of them.",
		imports: []string{"math"},
		decls: `
// Name is a named string.
type Name string

// Count is a named integer.
type Count int32

// Ratio is a named float.
type Ratio float32
`,
		classes: []corpusClass{
			{name: "Bool", typ: "bool", samples: []string{"false", "true"}},
			{name: "String", typ: "string", samples: []string{`""`, `"plain"`, `"<a&b> \"quoted\" \\ é ☃ \u2028 \x01"`}, key: true},
			{name: "Int", typ: "int", samples: []string{"0", "-1", "math.MinInt64", "math.MaxInt64"}, key: true},
			{name: "Int8", typ: "int8", samples: []string{"math.MinInt8", "math.MaxInt8"}, key: true},
			{name: "Int16", typ: "int16", samples: []string{"math.MinInt16", "math.MaxInt16"}, key: true},
			{name: "Int32", typ: "int32", samples: []string{"math.MinInt32", "math.MaxInt32"}, key: true},
			{name: "Int64", typ: "int64", samples: []string{"math.MinInt64", "1 << 53", "1<<53 + 1", "math.MaxInt64"}, key: true},
			{name: "Uint", typ: "uint", samples: []string{"0", "math.MaxUint64"}, key: true},
			{name: "Uint8", typ: "uint8", samples: []string{"0", "math.MaxUint8"}, key: true},
			{name: "Uint16", typ: "uint16", samples: []string{"math.MaxUint16"}, key: true},
			{name: "Uint32", typ: "uint32", samples: []string{"math.MaxUint32"}, key: true},
			{name: "Uint64", typ: "uint64", samples: []string{"0", "1<<53 + 1", "math.MaxUint64"}, key: true},
			{name: "Uintptr", typ: "uintptr", samples: []string{"0", "math.MaxUint64"}, key: true},
			{name: "Float32", typ: "float32", samples: []string{"0", "0.1", "-1.5", "math.MaxFloat32", "math.SmallestNonzeroFloat32", "1e20", "1e21"}},
			{name: "Float64", typ: "float64", samples: []string{"0", "math.Copysign(0, -1)", "0.1", "1e20", "1e21", "1e-7", "math.MaxFloat64", "math.SmallestNonzeroFloat64", "1<<53 + 1"}},
			{name: "Name", typ: "Name", samples: []string{`""`, `"ada"`}, key: true},
			{name: "Count", typ: "Count", samples: []string{"0", "math.MaxInt32"}, key: true},
			{name: "Ratio", typ: "Ratio", samples: []string{"0.25", "-3"}},
		},
	},
	{
		name:    "enums",
		doc:     "Named types with constants: their values become the schema's enum.",
		imports: nil,
		decls: `
// Color is a string enum.
type Color string

// The colors.
const (
	Red   Color = "red"   // Red is warm.
	Green Color = "green" // Green is calm.
)

// Level is an integer enum.
type Level int

// The levels.
const (
	Low Level = iota
	Mid
	High
)

// Weekday is an integer enum with a String method, which encoding/json
// does not use: it writes the number.
type Weekday uint8

// The days.
const (
	Sunday Weekday = iota
	Monday
)

func (d Weekday) String() string { return [...]string{"Sunday", "Monday"}[d] }
`,
		classes: []corpusClass{
			{name: "Color", typ: "Color", samples: []string{"Red", "Green"}, key: true},
			{name: "Level", typ: "Level", samples: []string{"Low", "High"}, key: true},
			{name: "Weekday", typ: "Weekday", samples: []string{"Sunday", "Monday"}, key: true},
		},
	},
	{
		name:    "bytes",
		doc:     "Byte slices (base64), byte arrays (arrays of numbers), arrays and raw JSON.",
		imports: []string{"encoding/json"},
		decls: `
// Blob is a named byte slice.
type Blob []byte
`,
		classes: []corpusClass{
			{name: "Bytes", typ: "[]byte", samples: []string{"nil", "[]byte{}", `[]byte("hello\x00\xff")`}},
			{name: "Blob", typ: "Blob", samples: []string{"nil", `Blob("blob")`}},
			{name: "Digest", typ: "[4]byte", samples: []string{"[4]byte{}", "[4]byte{1, 2, 254, 255}"}},
			{name: "Triple", typ: "[3]int", samples: []string{"[3]int{-1, 0, 1}"}},
			{name: "Raw", anyValue: true, typ: "json.RawMessage", samples: []string{`json.RawMessage("null")`, `json.RawMessage("{\"a\":[1,2.5,\"x\",{}]}")`, `json.RawMessage("12345678901234567890")`}},
		},
	},
	{
		name:    "dynamic",
		doc:     "Values of any type: any, map[string]any, []any.",
		imports: nil,
		classes: []corpusClass{
			{name: "Any", anyValue: true, typ: "any", samples: []string{"nil", `"s"`, "1.5", "true", `map[string]any{"a": []any{1.0, "x", nil, map[string]any{}}}`}},
			{name: "Object", anyValue: true, typ: "map[string]any", samples: []string{"nil", "map[string]any{}", `map[string]any{"n": 1.0, "s": []any{}}`}},
			{name: "List", anyValue: true, typ: "[]any", samples: []string{"nil", "[]any{}", `[]any{1.0, "two", false}`}},
		},
	},
	{
		name:    "pointers",
		doc:     "Pointers to pointers and named pointer types.",
		imports: nil,
		decls: `
// IntPtr is a named pointer type.
type IntPtr *int

func ptr[T any](v T) *T { return &v }
`,
		classes: []corpusClass{
			{name: "PtrPtr", typ: "**int", samples: []string{"nil", "ptr(ptr(3))"}},
			{name: "IntPtr", typ: "IntPtr", samples: []string{"nil", "IntPtr(ptr(4))"}},
		},
	},
	{
		name:    "time",
		doc:     "time.Time, time.Duration and time.Month.",
		imports: []string{"math", "time"},
		classes: []corpusClass{
			{name: "Time", typ: "time.Time", samples: []string{"time.Time{}", "time.Date(2024, 2, 29, 12, 30, 45, 123456789, time.UTC)", "time.Date(1999, 12, 31, 23, 59, 59, 0, time.FixedZone(\"\", -7*3600))"}, key: true},
			{name: "Duration", typ: "time.Duration", samples: []string{"0", "1500 * time.Millisecond", "-time.Nanosecond", "math.MaxInt64"}, key: true},
			{name: "Month", typ: "time.Month", samples: []string{"time.January", "time.December"}, key: true},
		},
	},
	{
		name:    "numbers",
		doc:     "json.Number and math/big's numbers.",
		imports: []string{"encoding/json", "math/big"},
		decls: `
func bigInt(s string) big.Int {
	var n big.Int
	n.SetString(s, 10)
	return n
}
`,
		classes: []corpusClass{
			{name: "Number", typ: "json.Number", samples: []string{`"0"`, `"-1.5e300"`, `"18446744073709551616"`}, key: true},
			{name: "BigInt", typ: "big.Int", skip: []string{"Map"}, samples: []string{`bigInt("0")`, `bigInt("-5")`, `bigInt("1267650600228229401496703205376")`}},
			{name: "BigFloat", typ: "big.Float", skip: []string{"Map"}, samples: []string{"*big.NewFloat(1.5)"}},
			{name: "BigRat", typ: "big.Rat", skip: []string{"Map"}, samples: []string{"*big.NewRat(1, 3)"}},
		},
	},
	{
		name:    "text",
		doc:     "Types with a text form (encoding.TextMarshaler): strings on the wire.",
		imports: []string{"fmt", "net/netip"},
		decls: `
// Point is written as "x,y".
type Point struct{ X, Y int }

// MarshalText writes "x,y".
func (p Point) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%d,%d", p.X, p.Y), nil }

// UnmarshalText reads "x,y".
func (p *Point) UnmarshalText(b []byte) error {
	_, err := fmt.Sscanf(string(b), "%d,%d", &p.X, &p.Y)
	return err
}

// Mode is an integer with constants, written by name: its text form, not
// the constants' values, is what goes on the wire.
type Mode int

// The modes.
const (
	Read Mode = iota
	Write
)

// MarshalText writes the mode's name.
func (m Mode) MarshalText() ([]byte, error) { return []byte([...]string{"read", "write"}[m]), nil }

// UnmarshalText reads a mode's name.
func (m *Mode) UnmarshalText(b []byte) error {
	switch string(b) {
	case "read":
		*m = Read
	case "write":
		*m = Write
	default:
		return fmt.Errorf("unknown mode %q", b)
	}
	return nil
}
`,
		classes: []corpusClass{
			{name: "Addr", typ: "netip.Addr", samples: []string{`netip.MustParseAddr("192.0.2.1")`, `netip.MustParseAddr("2001:db8::1")`, "netip.Addr{}"}, key: true},
			{name: "Prefix", typ: "netip.Prefix", samples: []string{`netip.MustParsePrefix("10.0.0.0/8")`}, key: true},
			{name: "AddrPort", typ: "netip.AddrPort", samples: []string{`netip.MustParseAddrPort("[::1]:80")`}, key: true},
			{name: "Point", typ: "Point", samples: []string{"Point{}", "Point{X: 3, Y: -4}"}, key: true},
			{name: "Mode", typ: "Mode", samples: []string{"Read", "Write"}, key: true},
		},
	},
	{
		name:    "structs",
		doc:     "Embedded, anonymous, generic, recursive structs, unexported fields and keys that are not identifiers.",
		imports: nil,
		decls: `
// Base is embedded by value.
type Base struct {
	ID   int    ` + "`json:\"id\"`" + `
	Note string ` + "`json:\"note,omitempty\"`" + `
}

// Extra is embedded by pointer.
type Extra struct {
	Tag string ` + "`json:\"tag\"`" + `
}

// Embedded embeds a struct by value and one by pointer.
type Embedded struct {
	Base
	*Extra
	Name string ` + "`json:\"name\"`" + `
}

// Left and Right both have x: embedded side by side, encoding/json writes
// neither.
type Left struct {
	X int ` + "`json:\"x\"`" + `
	L int ` + "`json:\"l\"`" + `
}

// Right: see Left.
type Right struct {
	X int ` + "`json:\"x\"`" + `
	R int ` + "`json:\"r\"`" + `
}

// Clash embeds Left and Right.
type Clash struct {
	Left
	Right
}

// Pair is generic.
type Pair[K comparable, V any] struct {
	Key   K ` + "`json:\"key\"`" + `
	Value V ` + "`json:\"value\"`" + `
}

// Tree is recursive through a slice.
type Tree struct {
	Value    int    ` + "`json:\"value\"`" + `
	Children []Tree ` + "`json:\"children,omitempty\"`" + `
}

// Chain is recursive through a pointer.
type Chain struct {
	Value string ` + "`json:\"value\"`" + `
	Next  *Chain ` + "`json:\"next,omitempty\"`" + `
}

// Hidden has fields encoding/json leaves out.
type Hidden struct {
	Shown   int ` + "`json:\"shown\"`" + `
	hidden  int
	Skipped int ` + "`json:\"-\"`" + `
	Dash    int ` + "`json:\"-,\"`" + `
}

// Odd has keys that are not identifiers.
type Odd struct {
	A int ` + "`json:\"a-b\"`" + `
	B int ` + "`json:\"a b\"`" + `
	C int ` + "`json:\"日本\"`" + `
	D int ` + "`json:\"$ref\"`" + `
	E int ` + "`json:\"1x\"`" + `
	F int ` + "`json:\"constructor\"`" + `
}

// Index is a named map.
type Index map[string][]int

// Names is a named slice.
type Names []string

// IntPair is an alias of an instance of Pair.
type IntPair = Pair[int, string]

var _ = Hidden{hidden: 0}
`,
		classes: []corpusClass{
			{name: "Embedded", object: true, typ: "Embedded", samples: []string{"Embedded{}", `Embedded{Base: Base{ID: 1, Note: "n"}, Extra: &Extra{Tag: "t"}, Name: "x"}`}},
			{name: "Clash", object: true, typ: "Clash", samples: []string{"Clash{Left{1, 2}, Right{3, 4}}"}},
			{name: "Pair", object: true, typ: "Pair[string, []int]", samples: []string{`Pair[string, []int]{Key: "k", Value: []int{1}}`}},
			{name: "IntPair", object: true, typ: "IntPair", samples: []string{`IntPair{Key: 1, Value: "one"}`}},
			{name: "Tree", object: true, typ: "Tree", samples: []string{"Tree{}", "Tree{Value: 1, Children: []Tree{{Value: 2}, {Value: 3, Children: []Tree{{Value: 4}}}}}"}},
			{name: "Chain", object: true, typ: "Chain", samples: []string{`Chain{Value: "a", Next: &Chain{Value: "b"}}`}},
			{name: "Hidden", object: true, typ: "Hidden", samples: []string{"Hidden{Shown: 1, hidden: 2, Skipped: 3, Dash: 4}"}},
			{name: "Odd", object: true, typ: "Odd", samples: []string{"Odd{1, 2, 3, 4, 5, 6}"}},
			{name: "Anon", object: true, typ: `struct { A int "json:\"a\""; B []string }`, samples: []string{`struct { A int "json:\"a\""; B []string }{A: 1, B: []string{"b"}}`}},
			{name: "Index", typ: "Index", samples: []string{"nil", `Index{"a": {1, 2}, "b": nil}`}},
			{name: "Names", typ: "Names", samples: []string{"nil", `Names{"a", "b"}`}},
		},
	},
	{
		name:    "tags",
		doc:     "The json tag's options: ,string, omitempty, omitzero.",
		imports: []string{"encoding/json", "time"},
		decls: `
// Small is a named integer.
type Small int8

// Quoted has a field of every kind ",string" quotes.
type Quoted struct {
	I64 int64         ` + "`json:\"i64,string\"`" + `
	U64 uint64        ` + "`json:\"u64,string\"`" + `
	B   bool          ` + "`json:\"b,string\"`" + `
	F   float64       ` + "`json:\"f,string\"`" + `
	S   string        ` + "`json:\"s,string\"`" + `
	P   *int          ` + "`json:\"p,string\"`" + `
	N   Small         ` + "`json:\"n,string\"`" + `
	D   time.Duration ` + "`json:\"d,string\"`" + `
	T   time.Time     ` + "`json:\"t,string\"`" + `
	Num json.Number   ` + "`json:\"num,string\"`" + `
}

// Inner is a struct field.
type Inner struct {
	A int ` + "`json:\"a\"`" + `
}

// Zeroish says itself when it is zero.
type Zeroish struct {
	N int ` + "`json:\"n\"`" + `
}

// IsZero reports whether N is negative: omitzero asks it.
func (z Zeroish) IsZero() bool { return z.N < 0 }

// Omit has omitempty and omitzero fields of every kind.
type Omit struct {
	I  int            ` + "`json:\"i,omitempty\"`" + `
	S  string         ` + "`json:\"s,omitempty\"`" + `
	L  []int          ` + "`json:\"l,omitempty\"`" + `
	M  map[string]int ` + "`json:\"m,omitempty\"`" + `
	P  *int           ` + "`json:\"p,omitempty\"`" + `
	St Inner          ` + "`json:\"st,omitempty\"`" + `
	T  time.Time      ` + "`json:\"t,omitempty\"`" + `
	ZT time.Time      ` + "`json:\"zt,omitzero\"`" + `
	ZS Inner          ` + "`json:\"zs,omitzero\"`" + `
	ZA [2]int         ` + "`json:\"za,omitzero\"`" + `
	ZI int            ` + "`json:\"zi,omitzero\"`" + `
	ZL []int          ` + "`json:\"zl,omitzero\"`" + `
	Z  Zeroish        ` + "`json:\"z,omitzero\"`" + `
}

func ptr[T any](v T) *T { return &v }
`,
		classes: []corpusClass{
			{name: "Quoted", object: true, typ: "Quoted", samples: []string{"Quoted{}", `Quoted{I64: -1 << 62, U64: 1<<64 - 1, B: true, F: 0.5, S: "x \"y\"", P: ptr(7), N: -8, D: time.Second, T: time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC), Num: "-1.5e3"}`}},
			{name: "Omit", object: true, typ: "Omit", samples: []string{"Omit{}", "Omit{Z: Zeroish{N: -1}, ZL: []int{}, L: []int{}}", `Omit{I: 1, S: "s", L: []int{1}, M: map[string]int{"a": 1}, P: ptr(0), St: Inner{1}, T: time.Unix(0, 0).UTC(), ZT: time.Unix(1, 0).UTC(), ZS: Inner{2}, ZA: [2]int{1}, ZI: 3, ZL: []int{}, Z: Zeroish{N: 5}}`}},
		},
	},
	{
		name:    "encoded",
		doc:     "Types that write their own JSON: the standard library's rpcgen knows, and others whose schema a directive states.",
		imports: []string{"encoding/json", "log/slog", "net", "rpcgen.test/types/foreign", "time"},
		decls: `
// Celsius is a temperature, written as a number of degrees.
//
//rpcgen:schema file=celsius.schema.json
type Celsius struct{ deg float64 }

// MarshalJSON writes the degrees.
func (c Celsius) MarshalJSON() ([]byte, error) { return json.Marshal(c.deg) }

// UnmarshalJSON reads the degrees.
func (c *Celsius) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &c.deg) }

// Money is an amount of another package, whose schema this package states.
//
//rpcgen:schema file=money.schema.json
type Money = foreign.Money

// Stamped embeds time.Time, whose MarshalJSON is promoted: encoding/json
// writes a Stamped as the time alone.
type Stamped struct {
	time.Time
}

var _ = net.IPv4len
`,
		files: map[string]string{
			"celsius.schema.json": `{"description": "Degrees Celsius.", "type": "number", "minimum": -273.15, "x-unit": "°C"}`,
			"money.schema.json":   `{"type": "string", "pattern": "^-?[0-9]+\\.[0-9]{2}$", "examples": ["12.34"]}`,
		},
		classes: []corpusClass{
			{name: "Celsius", typ: "Celsius", samples: []string{"Celsius{}", "Celsius{-40.5}"}},
			{name: "Money", typ: "Money", samples: []string{"foreign.Cents(0)", "foreign.Cents(1234)"}},
			{name: "Stamped", typ: "Stamped", samples: []string{"Stamped{time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}"}, key: true},
			{name: "Level", typ: "slog.Level", samples: []string{"slog.LevelInfo", "slog.LevelDebug + 2"}, key: true},
			{name: "IP", typ: "net.IP", samples: []string{`net.ParseIP("192.0.2.1")`, `net.ParseIP("2001:db8::1")`, "nil"}},
		},
	},
}
