package emit

import (
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/invopop/jsonschema"

	"github.com/rpcgen/rpcgen/generator/internal/naming"
)

// The checks generated after a value is read, one per schema keyword. Each
// failure calls d.Fail with a message a model can act on; the decoder puts
// the value's path in front.

// fail is d.Fail(msg), msg written as a raw string when that reads better.
func fail(msg string) jen.Code {
	lit := jen.Lit(msg)
	if strings.Contains(msg, `"`) && strconv.CanBackquote(msg) {
		lit = jen.Op("`" + msg + "`")
	}
	return dcall("Fail", lit)
}

// scalarChecks checks a string or number against s.
func (de *decodeEmitter) scalarChecks(sc *decodeScope, t types.Type, u *types.Basic, s *jsonschema.Schema, val func() *jen.Statement, pos token.Position) []jen.Code {
	if s == nil {
		return nil
	}
	var code []jen.Code
	switch info := u.Info(); {
	case info&types.IsString != 0:
		count := func() *jen.Statement { return jen.Qual("unicode/utf8", "RuneCountInString").Call(val()) }
		hasMin := s.MinLength != nil && *s.MinLength > 0
		switch {
		case hasMin && s.MaxLength != nil:
			// Count the code points once for both bounds.
			lo, hi := strconv.FormatUint(*s.MinLength, 10), strconv.FormatUint(*s.MaxLength, 10)
			code = append(code, jen.If(jen.Id("n").Op(":=").Add(count()), jen.Id("n").Op("<").Op(lo)).Block(
				fail("shorter than minLength "+lo),
			).Else().If(jen.Id("n").Op(">").Op(hi)).Block(fail("longer than maxLength "+hi)))
		case hasMin:
			n := strconv.FormatUint(*s.MinLength, 10)
			code = append(code, jen.If(count().Op("<").Op(n)).Block(fail("shorter than minLength "+n)))
		case s.MaxLength != nil:
			n := strconv.FormatUint(*s.MaxLength, 10)
			code = append(code, jen.If(count().Op(">").Op(n)).Block(fail("longer than maxLength "+n)))
		}
		if s.Pattern != "" {
			if re := de.pattern(sc, s.Pattern, pos); re != "" {
				code = append(code, jen.If(jen.Op("!").Id(re).Dot("MatchString").Call(val())).Block(
					fail("must match the pattern "+s.Pattern)))
			}
		}
	case info&(types.IsInteger|types.IsFloat) != 0:
		code = append(code, de.numberChecks(u, s, val, pos)...)
	}
	if len(s.Enum) > 0 {
		code = append(code, de.enumCheck(t, u, s.Enum, val, pos)...)
	}
	return code
}

// pattern returns the package-level variable holding the compiled pattern,
// declaring it the first time; "" when Go cannot compile it.
func (de *decodeEmitter) pattern(sc *decodeScope, expr string, pos token.Position) string {
	if name, ok := de.patterns[expr]; ok {
		return name
	}
	if _, err := regexp.Compile(expr); err != nil {
		de.sg.Errorf(pos, fmt.Sprintf("pattern %q cannot be checked: Go's regexp (RE2 syntax, no lookaround or backreferences) rejects it: %v", expr, err))
		de.patterns[expr] = ""
		return ""
	}
	name := de.name(naming.LowerFirst(sc.owner) + "Pattern")
	de.patterns[expr] = name
	de.file.Line()
	de.file.Commentf("%s is a pattern of the input schema, compiled once.", name)
	pat := jen.Lit(expr)
	if strconv.CanBackquote(expr) {
		pat = jen.Op("`" + expr + "`")
	}
	de.file.Var().Id(name).Op("=").Qual("regexp", "MustCompile").Call(pat)
	return name
}

// numberChecks checks minimum, maximum, exclusiveMinimum, exclusiveMaximum
// and multipleOf. Integer bounds are rounded to the integers they allow; a
// bound every value of the Go type meets is left out, and one none meets is
// an error.
func (de *decodeEmitter) numberChecks(u *types.Basic, s *jsonschema.Schema, val func() *jen.Statement, pos token.Position) []jen.Code {
	var code []jen.Code
	bounds := []struct {
		keyword string
		num     json.Number
		lower   bool // a lower bound
		strict  bool // exclusive
		op      string
		msg     string
	}{
		{"minimum", s.Minimum, true, false, "<", "must be >= "},
		{"exclusiveMinimum", s.ExclusiveMinimum, true, true, "<=", "must be > "},
		{"maximum", s.Maximum, false, false, ">", "must be <= "},
		{"exclusiveMaximum", s.ExclusiveMaximum, false, true, ">=", "must be < "},
	}
	integer := u.Info()&types.IsInteger != 0
	lo, hi := basicRange(u)
	for _, b := range bounds {
		if b.num == "" {
			continue
		}
		r, ok := new(big.Rat).SetString(string(b.num))
		if !ok {
			de.sg.Errorf(pos, fmt.Sprintf("%s %s is not a number", b.keyword, b.num))
			continue
		}
		op, lit := b.op, string(b.num)
		if integer {
			// As the integer n the value must not be below (lower) or above:
			// v >= r is v >= ceil(r), v > r is v >= floor(r)+1, v <= r is
			// v <= floor(r), v < r is v <= ceil(r)-1.
			var n *big.Int
			switch {
			case b.lower && !b.strict:
				n = roundRat(r, true)
			case b.lower:
				n = new(big.Int).Add(roundRat(r, false), big.NewInt(1))
			case !b.strict:
				n = roundRat(r, false)
			default:
				n = new(big.Int).Sub(roundRat(r, true), big.NewInt(1))
			}
			if b.lower {
				op = "<"
			} else {
				op = ">"
			}
			switch {
			case b.lower && n.Cmp(hi) > 0, !b.lower && n.Cmp(lo) < 0:
				de.sg.Errorf(pos, fmt.Sprintf("%s %s: no %s can meet it", b.keyword, b.num, u.Name()))
				continue
			case b.lower && n.Cmp(lo) <= 0, !b.lower && n.Cmp(hi) >= 0:
				continue // every value meets it
			}
			lit = n.String()
		}
		v := val()
		if wideNeeded(u, lit) {
			v = jen.Id(widest(u)).Call(val())
		}
		code = append(code, jen.If(v.Op(op).Op(lit)).Block(fail(b.msg+string(b.num))))
	}
	if s.MultipleOf != "" {
		code = append(code, de.multipleOfCheck(u, s.MultipleOf, val, pos)...)
	}
	return code
}

// roundRat rounds r up (ceil) for a lower bound, down (floor) otherwise.
func roundRat(r *big.Rat, up bool) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	if up && m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// basicRange is the range of an integer kind; int, uint and uintptr are
// taken as 64 bits wide (see wideNeeded). Floats get an unbounded range.
func basicRange(u *types.Basic) (lo, hi *big.Int) {
	bits := map[types.BasicKind]uint{types.Int8: 8, types.Int16: 16, types.Int32: 32, types.Uint8: 8, types.Uint16: 16, types.Uint32: 32}[u.Kind()]
	if bits == 0 {
		bits = 64
	}
	one := big.NewInt(1)
	if u.Info()&types.IsUnsigned != 0 {
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
	}
	if u.Info()&types.IsInteger == 0 {
		inf := new(big.Int).Lsh(one, 1100)
		return new(big.Int).Neg(inf), inf
	}
	hi = new(big.Int).Sub(new(big.Int).Lsh(one, bits-1), one)
	return new(big.Int).Neg(new(big.Int).Add(hi, one)), hi
}

// wideNeeded reports whether comparing a value of kind u with the constant
// lit needs a conversion to compile on every platform: an int bound beyond
// 32 bits, or a float32 bound beyond float32's range.
func wideNeeded(u *types.Basic, lit string) bool {
	switch u.Kind() {
	case types.Int, types.Uint, types.Uintptr:
		n, ok := new(big.Int).SetString(lit, 10)
		return ok && (n.Cmp(big.NewInt(math.MinInt32)) < 0 || n.Cmp(big.NewInt(math.MaxUint32)) > 0 ||
			u.Kind() == types.Int && n.Cmp(big.NewInt(math.MaxInt32)) > 0)
	case types.Float32:
		f, _ := strconv.ParseFloat(lit, 64)
		return math.Abs(f) > math.MaxFloat32
	}
	return false
}

// widest is the type a value of kind u is converted to by wideNeeded.
func widest(u *types.Basic) string {
	switch {
	case u.Info()&types.IsFloat != 0:
		return "float64"
	case u.Info()&types.IsUnsigned != 0:
		return "uint64"
	}
	return "int64"
}

// multipleOfCheck checks multipleOf: exactly for integers (v is a multiple
// of a/b in lowest terms when a divides v), within rounding for floats.
func (de *decodeEmitter) multipleOfCheck(u *types.Basic, m json.Number, val func() *jen.Statement, pos token.Position) []jen.Code {
	r, ok := new(big.Rat).SetString(string(m))
	if !ok || r.Sign() <= 0 {
		de.sg.Errorf(pos, fmt.Sprintf("multipleOf %s must be a number greater than 0", m))
		return nil
	}
	msg := fail("must be a multiple of " + string(m))
	if u.Info()&types.IsFloat != 0 {
		v := val()
		if u.Kind() != types.Float64 {
			v = jen.Float64().Call(val())
		}
		return []jen.Code{jen.If(jen.Op("!").Qual(implPath, "MultipleOf").Call(v, jen.Op(string(m)))).Block(msg)}
	}
	a := r.Num()
	_, hi := basicRange(u)
	switch {
	case a.Cmp(big.NewInt(1)) == 0:
		return nil // every integer is a multiple
	case a.Cmp(hi) > 0:
		return []jen.Code{jen.If(val().Op("!=").Lit(0)).Block(msg)}
	}
	v := val()
	if wideNeeded(u, a.String()) {
		v = jen.Id(widest(u)).Call(val())
	}
	return []jen.Code{jen.If(v.Op("%").Op(a.String()).Op("!=").Lit(0)).Block(msg)}
}

// enumCheck checks that the value is one of the enum's values; values that
// cannot have the Go type are left out, and an enum left empty is an error.
func (de *decodeEmitter) enumCheck(t types.Type, u *types.Basic, enum []any, val func() *jen.Statement, pos token.Position) []jen.Code {
	var cases, shown []string
	for _, v := range enum {
		switch v := v.(type) {
		case string:
			if u.Info()&types.IsString != 0 {
				cases, shown = append(cases, strconv.Quote(v)), append(shown, strconv.Quote(v))
			}
		case json.Number:
			if lit, ok := numberLit(u, v); ok {
				cases, shown = append(cases, lit), append(shown, string(v))
			}
		case bool:
			if u.Info()&types.IsBoolean != 0 {
				cases, shown = append(cases, strconv.FormatBool(v)), append(shown, strconv.FormatBool(v))
			}
		case float64:
			if lit, ok := numberLit(u, json.Number(strconv.FormatFloat(v, 'g', -1, 64))); ok {
				cases, shown = append(cases, lit), append(shown, lit)
			}
		}
	}
	if len(cases) == 0 {
		de.sg.Errorf(pos, "enum has no value of type "+de.sg.TypeString(t))
		return nil
	}
	vals := make([]jen.Code, len(cases))
	for i, c := range cases {
		vals[i] = jen.Op(c)
	}
	return []jen.Code{jen.Switch(val()).Block(
		jen.Case(vals...),
		jen.Default().Block(fail("must be one of "+strings.Join(shown, ", "))),
	)}
}

// numberLit returns the Go literal of the JSON number n for a value of kind
// u, false when no such value equals n.
func numberLit(u *types.Basic, n json.Number) (string, bool) {
	r, ok := new(big.Rat).SetString(string(n))
	switch {
	case !ok:
		return "", false
	case u.Info()&types.IsInteger != 0:
		lo, hi := basicRange(u)
		if !r.IsInt() || r.Num().Cmp(lo) < 0 || r.Num().Cmp(hi) > 0 {
			return "", false
		}
		return r.Num().String(), true
	case u.Info()&types.IsFloat != 0:
		return string(n), true
	}
	return "", false
}

// itemChecks checks minItems, maxItems and uniqueItems of a slice.
func (de *decodeEmitter) itemChecks(elem types.Type, s *jsonschema.Schema, val func() *jen.Statement, pos token.Position) []jen.Code {
	if s == nil {
		return nil
	}
	code := countChecks(val, s.MinItems, s.MaxItems, "items", "minItems", "maxItems")
	if s.UniqueItems {
		code = append(code, de.uniqueCheck(elem, val(), pos)...)
	}
	return code
}

// uniqueCheck checks uniqueItems with runtime.HasDuplicates, which compares
// with ==: the items must be comparable and hold no pointers, whose ==
// would compare addresses rather than the JSON values.
func (de *decodeEmitter) uniqueCheck(elem types.Type, slice jen.Code, pos token.Position) []jen.Code {
	if !plainComparable(elem, map[types.Type]bool{}) {
		de.sg.Errorf(pos, "uniqueItems needs items that compare by value; "+de.sg.TypeString(elem)+" does not")
		return nil
	}
	return []jen.Code{jen.If(jen.Qual(implPath, "HasDuplicates").Call(slice)).Block(fail("must not hold the same item twice (uniqueItems)"))}
}

// plainComparable reports whether == on t compares JSON values: basic
// types, and arrays and structs of them.
func plainComparable(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsComplex == 0 && u.Kind() != types.UnsafePointer
	case *types.Array:
		return plainComparable(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if !plainComparable(u.Field(i).Type(), seen) {
				return false
			}
		}
		return true
	}
	return false
}

// countChecks checks the lower and upper bounds on len(val).
func countChecks(val func() *jen.Statement, min, max *uint64, what, minWord, maxWord string) []jen.Code {
	var code []jen.Code
	if min != nil && *min > 0 {
		n := strconv.FormatUint(*min, 10)
		code = append(code, jen.If(jen.Len(val()).Op("<").Op(n)).Block(fail("fewer "+what+" than "+minWord+" "+n)))
	}
	if max != nil {
		n := strconv.FormatUint(*max, 10)
		code = append(code, jen.If(jen.Len(val()).Op(">").Op(n)).Block(fail("more "+what+" than "+maxWord+" "+n)))
	}
	return code
}
