package rpcimpl

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// maxDecodeDepth bounds how deeply a Decoder lets objects and arrays nest;
// maxResultDepth bounds a result decoder's, as encoding/json bounds its own.
const (
	maxDecodeDepth = 128
	maxResultDepth = 10000
)

// Decoder reads and validates JSON params in one pass, for generated code: the
// generated decode function of each method walks the input with it, storing
// each value straight into its Go field and checking the field's constraints
// as it goes. It uses no reflection, and reading a number, a bool or a string
// without escapes allocates nothing beyond the string itself.
//
// A problem with a value (a wrong type, a value out of range, a constraint
// not met, a missing or unknown member) is recorded and decoding goes on
// past the value, so that one error lists every problem of the params, and
// a caller (often a model) fixes them all in one retry; one problem per
// value, the first. Malformed JSON, a wrong count of by-position params or
// params that are not an object stop decoding: from then on every read
// returns a zero value and NextKey and NextElem return false. Finish returns
// the problems as a *runtime.Error with CodeInvalidParams whose message names
// each offending value by its path, for example
//
//	invalid params: "tags[2]": expected a string, got 42
//	invalid params: missing required field "query"
//	invalid params: 2 problems: "limit": expected an integer, got "ten"; unknown field "lmit" (valid fields: query, limit)
//
// and whose data lists them, {"problems": [{"path": "limit", "message":
// "expected an integer, got \"ten\""}, {"message": "unknown field ..."}]}
// (see Problem). At most MaxProblems are listed; the last then says that
// decoding stopped there.
//
// The rules, stricter than encoding/json's where a model is better told:
//   - keys match case-sensitively;
//   - an unknown key is an error (the generated code calls UnknownField);
//   - a repeated key is accepted and its last value wins, as in encoding/json;
//   - an integer may be written with a fraction or exponent when its value
//     is integral (1.0 and 1e2 are integers, as in JSON Schema); anything
//     else, and anything out of the Go type's range, is an error;
//   - null is accepted only where Go has a nil (the generated code checks
//     Null for pointers, slices, maps and any); elsewhere it is a type error;
//   - strings must be valid UTF-8; an escaped lone surrogate becomes U+FFFD,
//     as in encoding/json;
//   - objects and arrays may nest 128 deep.
//
// A Decoder is a value meant to live on the stack of the generated function:
// create it with NewDecoder and pass its address to helpers.
type Decoder struct {
	buf   []byte // the input; between OpenQuoted and CloseQuoted, the quoted text
	pos   int    // next byte of buf to read
	start int    // offset in orig of what an error reported now is about
	depth int    // objects and arrays open

	orig    []byte  // the whole input, for locating errors
	root    int     // where the params start in orig, past a by-position wrapper
	names   *Fields // by-position params: the names of the elements; nil otherwise
	index   int     // by-position params read so far
	wrapped bool    // the params are an object inside a one-element array

	outer    []byte // buf while reading a quoted value
	outerPos int
	quoted   bool

	key []byte // storage for keys holding escapes

	problems []Problem // what was wrong, in the order met
	stopped  bool      // a problem stopped decoding (malformed JSON...)
	failedAt int       // d.start of the value the last problem is about, -1 for none

	lenient bool // a result decoder (NewResultDecoder): null reads as the zero value
}

// Problem is one thing wrong with params: the path of the value it is about
// ("tags[2]", "" for the params themselves) and what is wrong with it. The
// data of an invalid-params error from a Decoder is {"problems": [...]}.
type Problem struct {
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// MaxProblems is how many problems a Decoder lists before it stops.
const MaxProblems = 20

// NewDecoder returns a Decoder reading data, which must not change while it
// is in use. Values read as []byte (Raw) point into data.
func NewDecoder(data []byte) Decoder {
	return Decoder{buf: data, orig: data, failedAt: -1}
}

// Fields lists the keys of a params object or of a struct, in declaration
// order: the valid fields named when an unknown one is rejected, and the
// names of by-position params. Generated code declares one per object type.
type Fields struct {
	keys [][]byte
	list string // "query, limit"
}

// NewFields returns the field list of an object with the given keys.
func NewFields(keys ...string) *Fields {
	f := &Fields{keys: make([][]byte, len(keys)), list: strings.Join(keys, ", ")}
	for i, k := range keys {
		f.keys[i] = []byte(k)
	}
	return f
}

var noFields = &Fields{} // NewFields(), without work at package initialisation

// emptyObject stands in for absent or null params.
var emptyObject = []byte("{}")

// isAbsent reports whether data holds no value or only null: params a
// caller may leave out.
func isAbsent(data []byte) bool {
	v := jsonscan.TrimSpace(data)
	return len(v) == 0 || string(v) == "null"
}

// Params opens the params of a method whose params are named by fields: a
// JSON object read with NextKey, or an array holding them by position, which
// NextKey then reads as if each element had its field's key; it must have
// exactly one element per field. Absent or null params read as an empty
// object.
func (d *Decoder) Params(fields *Fields) {
	if isAbsent(d.buf) {
		d.buf, d.orig = emptyObject, emptyObject
	}
	switch d.begin() {
	case '{':
		d.open()
	case '[':
		if d.open() {
			d.names = fields
		}
	case 0:
	default:
		d.typeError("an object")
		d.stopped = true // nothing else can be read
	}
}

// StructParams prepares to read the params of a method whose single param is
// a struct: the object itself, or by position an array holding exactly that
// object. Absent or null params read as an empty object.
func (d *Decoder) StructParams() {
	if isAbsent(d.buf) {
		d.buf, d.orig = emptyObject, emptyObject
		return
	}
	i := jsonscan.SkipSpace(d.buf, 0)
	if d.buf[i] != '[' {
		return
	}
	d.pos = jsonscan.SkipSpace(d.buf, i+1)
	if d.pos < len(d.buf) && d.buf[d.pos] == ']' {
		d.stop("expected 1 param by position, got 0")
		return
	}
	d.root, d.wrapped = d.pos, true
}

// NullParams reports whether data, the params of a method whose one param
// is a pointer to a struct, stand for a nil pointer: absent, null, or null
// by position ([null]), which is what encoding/json writes for one.
func NullParams(data []byte) bool {
	if isAbsent(data) {
		return true
	}
	v := jsonscan.TrimSpace(data)
	return len(v) >= 2 && v[0] == '[' && v[len(v)-1] == ']' && string(jsonscan.TrimSpace(v[1:len(v)-1])) == "null"
}

// NoParams checks the params of a method that takes none: absent, null, an
// empty object or an empty array.
func NoParams(data []byte) error {
	d := NewDecoder(data)
	d.Params(noFields)
	var key []byte
	for d.NextKey(&key) {
		d.UnknownField(key, noFields)
	}
	return d.Finish()
}

// countMessage words a wrong number of by-position params.
func countMessage(want int, names *Fields, got int) string {
	if want == 0 {
		return "expected no params, got " + strconv.Itoa(got) + " by position"
	}
	return "expected " + strconv.Itoa(want) + " params by position (" + names.list + "), got " + strconv.Itoa(got)
}

// Finish checks that nothing but white space follows the value and returns
// the problems met while decoding as one error, nil when there were none.
func (d *Decoder) Finish() error {
	if !d.stopped && d.wrapped {
		d.closeWrapper()
	}
	if !d.stopped {
		if i := jsonscan.SkipSpace(d.buf, d.pos); i < len(d.buf) {
			d.pos = i
			d.syntaxError("unexpected data after the value")
		}
	}
	if len(d.problems) == 0 {
		return nil
	}
	if d.lenient {
		return resultError(d.problems)
	}
	return problemsError(d.problems)
}

// problemsError is the invalid-params error listing problems.
func problemsError(problems []Problem) *runtime.Error {
	var b strings.Builder
	b.WriteString("invalid params: ")
	if len(problems) > 1 {
		b.WriteString(strconv.Itoa(len(problems)))
		b.WriteString(" problems: ")
	}
	for i, p := range problems {
		if i > 0 {
			b.WriteString("; ")
		}
		if p.Path != "" {
			b.WriteString(strconv.Quote(p.Path))
			b.WriteString(": ")
		}
		b.WriteString(p.Message)
	}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false) // "must be >= 1" as written
	_ = enc.Encode(struct {
		Problems []Problem `json:"problems"`
	}{problems}) // strings only: it cannot fail
	return &runtime.Error{Code: runtime.CodeInvalidParams, Message: b.String(), Data: bytes.TrimSuffix(data.Bytes(), []byte("\n"))}
}

// closeWrapper reads the end of the array around by-position struct params.
func (d *Decoder) closeWrapper() {
	i := jsonscan.SkipSpace(d.buf, d.pos)
	switch {
	case i < len(d.buf) && d.buf[i] == ']':
		d.pos = i + 1
	case i < len(d.buf) && d.buf[i] == ',':
		d.pos = i + 1
		n := 1 + d.countRest()
		d.start = d.root
		d.stop("expected 1 param by position, got " + strconv.Itoa(n))
	default:
		d.pos = i
		d.syntaxError("expected ']' after the params")
	}
}

// Fail records a problem with the value just read, unless one is recorded
// for that value already (reading it failed): msg, such as "must be >= 1",
// is reported after the value's path. After a container's end, the value is
// the container.
func (d *Decoder) Fail(msg string) {
	d.fail(msg)
}

// UnknownField records that the open object has a member key its type does
// not know, listing the valid ones, and skips the member's value.
func (d *Decoder) UnknownField(key []byte, fields *Fields) {
	if len(fields.keys) == 0 {
		d.fail("unknown field " + strconv.Quote(string(key)) + " (no fields are accepted)")
	} else {
		d.fail("unknown field " + strconv.Quote(string(key)) + " (valid fields: " + fields.list + ")")
	}
	start, failedAt := d.start, d.failedAt
	d.Skip()
	if !d.quoted {
		d.start = start
	}
	d.failedAt = failedAt
}

// MissingField records that the object just read lacks the required key.
func (d *Decoder) MissingField(key string) {
	if d.stopped {
		return
	}
	d.record("missing required field " + strconv.Quote(key))
}

// typeError records that the value at d.pos is not of the wanted type.
func (d *Decoder) typeError(want string) {
	if d.lenient && d.buf[d.pos] == 'n' {
		// null where Go has no nil: encoding/json leaves the value as it
		// is, which for a result being decoded is its zero value.
		d.literal("null")
		return
	}
	start, at := d.start, d.pos
	d.Skip()
	if d.stopped {
		return // malformed: that is the problem to report
	}
	d.start = start
	d.fail("expected " + want + ", got " + describe(d.buf[at:d.pos]))
}

// syntaxError records malformed JSON found at d.pos, in the value that
// holds d.pos.
func (d *Decoder) syntaxError(msg string) {
	if !d.quoted {
		d.start = d.pos
	}
	d.stop("malformed JSON at offset " + strconv.Itoa(d.pos) + ": " + msg)
}

// fail records a problem with the value at d.start, unless one is recorded
// for it already; decoding goes on.
func (d *Decoder) fail(msg string) {
	if d.stopped || d.start == d.failedAt {
		return
	}
	d.failedAt = d.start
	d.record(msg)
}

// stop records a problem, located at d.start, after which decoding cannot
// go on.
func (d *Decoder) stop(msg string) {
	if d.stopped {
		return
	}
	d.record(msg)
	d.stopped = true
}

// record adds the problem msg about the value at d.start, and stops
// decoding at MaxProblems.
func (d *Decoder) record(msg string) {
	d.problems = append(d.problems, Problem{Path: pathAt(d.orig, d.root, d.start, d.names), Message: msg})
	if len(d.problems) >= MaxProblems {
		d.problems[len(d.problems)-1].Message += " (and decoding stopped here: fix these and call again)"
		d.stopped = true
	}
}
