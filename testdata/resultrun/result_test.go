package results

import (
	"bytes"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/rpcimpl"

	"rpcgen.test/golden/randjson"
)

// decodeCase is one result type and its generated decode function.
type decodeCase struct {
	name      string
	typ       reflect.Type
	generated func([]byte) (any, error) // through DecodeResult
	viaJSON   func([]byte) (any, error) // json.Unmarshal into a ResultOf: UnmarshalJSON
	reference func([]byte) (any, error) // json.Unmarshal into the type
}

func caseOf[R any](name string, fn func(*rpcimpl.Decoder, *R)) decodeCase {
	return decodeCase{
		name: name, typ: reflect.TypeFor[R](),
		generated: func(b []byte) (any, error) {
			r := rpcimpl.NewResultOf(fn)
			err := r.DecodeResult(b)
			return r.Value, err
		},
		viaJSON: func(b []byte) (any, error) {
			r := rpcimpl.NewResultOf(fn)
			err := json.Unmarshal(b, r)
			return r.Value, err
		},
		reference: func(b []byte) (any, error) {
			var v R
			err := json.Unmarshal(b, &v)
			return v, err
		},
	}
}

var cases = []decodeCase{
	caseOf("Note", readNoteResult),
	caseOf("Notes", decodeResultsNotesResult),
	caseOf("Title", decodeResultsTitleResult),
	caseOf("Score", decodeResultsScoreResult),
	caseOf("Blob", decodeResultsBlobResult),
	caseOf("Counts", decodeTagCountsResult),
	caseOf("Maybe", decodeResultsMaybeResult),
	caseOf("Everything", readEverythingResult),
	caseOf("Tree", readTreeResult),
	caseOf("Grid", decodeResultsGridResult),
	caseOf("Keyed", decodeResultsKeyedResult),
}

// TestResultsAsJSON decodes random values of every result type, as
// json.Marshal writes them and then changed as a server may send them (keys
// in another case, members the client does not know, null where Go has no
// nil), with the generated decoder and with json.Unmarshal, and requires
// the same value from both.
func TestResultsAsJSON(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			for i := range 300 {
				v := values.Value(r, c.typ)
				data, err := json.Marshal(v.Interface())
				if err != nil {
					t.Fatal(err)
				}
				if i%2 == 1 {
					data = mutate(t, r, data, c.typ)
				}
				want, err := c.reference(data)
				if err != nil {
					t.Fatalf("json.Unmarshal of %s: %v", data, err)
				}
				for _, how := range []struct {
					name   string
					decode func([]byte) (any, error)
				}{{"DecodeResult", c.generated}, {"UnmarshalJSON", c.viaJSON}} {
					got, err := how.decode(data)
					if err != nil {
						t.Fatalf("%s of %s: %v", how.name, data, err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s of %s:\n got %#v\nwant %#v", how.name, data, got, want)
					}
				}
			}
		})
	}
}

// TestResultsWrongType: a value of another type is an error, from the
// generated decoder as from json.Unmarshal, naming where it is.
func TestResultsWrongType(t *testing.T) {
	for _, tc := range []struct {
		c         decodeCase
		raw, want string
	}{
		{caseOf("Note", readNoteResult), `{"id":7}`, `"id": expected a string, got 7`},
		{caseOf("Notes", decodeResultsNotesResult), `[{"id":"a"},{"tags":["x",1]}]`, `"[1].tags[1]": expected a string, got 1`},
		{caseOf("Everything", readEverythingResult), `{"u8":300}`, `"u8": expected an integer between 0 and 255, got 300`},
		{caseOf("Title", decodeResultsTitleResult), `"a" "b"`, `malformed JSON at offset 4: unexpected data after the value`},
		{caseOf("Tree", readTreeResult), `{"label":"a","children":[{"label":1},{"label":true}]}`, `"children[0].label": expected a string, got 1 (and 1 more problems)`},
	} {
		if _, err := tc.c.reference([]byte(tc.raw)); err == nil {
			t.Errorf("json.Unmarshal of %s: no error", tc.raw)
		}
		_, err := tc.c.generated([]byte(tc.raw))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.raw, err, tc.want)
		}
	}
}

// TestWrappedResult reads what is under "result", as CallToolWrapped does.
func TestWrappedResult(t *testing.T) {
	for _, raw := range []string{`{"result":[{"id":"a","tags":["x"]}],"other":1}`, `{"RESULT":[{"id":"a","tags":["x"]}]}`, `{}`, `null`} {
		r := rpcimpl.NewWrappedResultOf(decodeResultsNotesResult)
		if err := r.DecodeResult([]byte(raw)); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var want struct {
			Result []Note `json:"result"`
		}
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Value, want.Result) {
			t.Errorf("%s: got %#v, want %#v", raw, r.Value, want.Result)
		}
	}
}

// TestResultDecodeAllocs pins the allocations of decoding a note at the
// exact number: its two strings longer than a byte, the text of the time
// (parsed from a string) and the tags slice as it grows (twice); nothing for
// the Decoder, nor per key, number or skipped member.
func TestResultDecodeAllocs(t *testing.T) {
	data := []byte(`{"id":"n1","title":"a title","tags":["a","b"],"created":"2026-01-02T03:04:05Z","pinned":true,"rating":null,"extra":{"x":[1,2,3]}}`)
	r := rpcimpl.NewResultOf(readNoteResult)
	got := testing.AllocsPerRun(100, func() {
		r.Value = Note{}
		if err := r.DecodeResult(data); err != nil {
			t.Fatal(err)
		}
	})
	if got != noteAllocs {
		t.Errorf("%v allocations to decode a note, want %v", got, noteAllocs)
	}
}

const noteAllocs = 5

var (
	timeType = reflect.TypeFor[time.Time]()
	bigType  = reflect.TypeFor[*big.Int]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// values makes the random results: times in UTC (a decoded time in another
// zone has a Location of its own, which reflect.DeepEqual tells apart),
// big integers, raw JSON and numbers made apart.
var values = randjson.Values{
	Types: map[reflect.Type]func(*rand.Rand, reflect.Value){
		timeType: func(r *rand.Rand, v reflect.Value) {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(4e9)-1e9, r.Int64N(1e9)).UTC()))
		},
		bigType: func(r *rand.Rand, v reflect.Value) {
			if r.IntN(3) > 0 {
				v.Set(reflect.ValueOf(new(big.Int).Lsh(big.NewInt(r.Int64()), uint(r.IntN(100)))))
			}
		},
		rawType: func(r *rand.Rand, v reflect.Value) {
			raws := []string{`{"a":[1,2.5,"x"]}`, `[]`, `"s"`, `12`, `true`}
			if r.IntN(4) > 0 {
				v.SetBytes([]byte(raws[r.IntN(len(raws))]))
			}
		},
		reflect.TypeFor[json.Number](): func(r *rand.Rand, v reflect.Value) {
			v.SetString(strconv.FormatFloat(r.NormFloat64()*1e6, 'g', -1, 64))
		},
	},
}

// mutate changes JSON of a t as a server other than rpcgen's may: keys of
// objects in another case, members nobody declared, null for scalars.
func mutate(t *testing.T, r *rand.Rand, data []byte, typ reflect.Type) []byte {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(mutateValue(r, v, typ))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mutateValue(r *rand.Rand, v any, t reflect.Type) any {
	if t == rawType || t == timeType || t == bigType || t.Kind() == reflect.Interface {
		return v // what these hold is not the result's shape
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := v.(type) {
	case map[string]any:
		m := map[string]any{}
		if t.Kind() == reflect.Map {
			for k, e := range v {
				m[k] = mutateValue(r, e, t.Elem())
			}
			return m
		}
		fields := fieldTypes(t)
		for k, e := range v {
			ft := fields[k]
			if r.IntN(3) == 0 {
				k = strings.ToUpper(k)
			}
			m[k] = mutateValue(r, e, ft)
		}
		if r.IntN(3) == 0 {
			m["zz_unknown"] = map[string]any{"x": []any{1, "y", nil}}
		}
		return m
	case []any:
		for i := range v {
			v[i] = mutateValue(r, v[i], t.Elem())
		}
		return v
	case nil:
		return nil
	}
	if r.IntN(8) == 0 {
		return nil
	}
	return v
}

// fieldTypes maps the JSON keys of struct type t to their fields' types,
// embedded structs' promoted (enough for the types above).
func fieldTypes(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			for k, ft := range fieldTypes(et) {
				m[k] = ft
			}
			continue
		}
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}
