package encodes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
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

// encodeCase is one result type and its generated encoder.
type encodeCase struct {
	name string
	typ  reflect.Type
	// generated appends the value v points to after prefix.
	generated func(prefix []byte, v any) []byte
}

func caseOf[R any](name string, fn func([]byte, *R) []byte) encodeCase {
	return encodeCase{name: name, typ: reflect.TypeFor[R](), generated: func(prefix []byte, v any) []byte {
		return fn(prefix, v.(*R))
	}}
}

var cases = []encodeCase{
	caseOf("Note", appendNoteJSON),
	caseOf("Kinds", appendKindsJSON),
	caseOf("Omits", appendOmitsJSON),
	caseOf("Embeds", appendEmbedsJSON),
	caseOf("Counts", appendCountsJSON),
	caseOf("Maybe", appendEncodesMaybeResultJSON),
	caseOf("Empty", appendEmptyJSON),
	caseOf("Fallback", appendFallbackJSON),
	caseOf("Big", appendBigJSON),
}

// TestEncodersAsJSON encodes random values of every result type with the
// generated encoder, after a prefix, and with encoding/json, and requires
// the same bytes.
func TestEncodersAsJSON(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(len(c.name))))
			for range 500 {
				v := reflect.New(c.typ)
				v.Elem().Set(values.Value(r, c.typ))
				same(t, c, v.Interface())
			}
		})
	}
}

// same requires the generated encoder of c to write what json.Marshal
// writes for v, a pointer to a value of c's type.
func same(t *testing.T, c encodeCase, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	prefix := []byte("prefix")
	got := c.generated(prefix[:len(prefix):len(prefix)], v)
	if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
		t.Fatalf("%s:\n got %s\nwant prefix%s", c.name, got, want)
	}
}

// TestEncodersEdges encodes the values encoding/json treats apart: empty
// and nil containers, nil pointers, zero values with omitempty and
// omitzero, the floats on either side of the exponent rule, strings that
// need escapes or hold invalid UTF-8, keys to sort.
func TestEncodersEdges(t *testing.T) {
	rating := 0
	empty := ""
	tr := true
	raw := json.RawMessage(` { "a" : [1, 2] , "<b>" : "x&y\u2028" } `)
	when := time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", -(23*3600+59*60)))
	strs := []string{"", "plain", "\"quote\" \\ back", "<script>&amp;</script>", "\u2028\u2029", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"\xff\xfe invalid", "é日本😀", "a\xe2\x80", "\ufffd", "</", strings.Repeat("x", 300)}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789e13, math.MaxFloat64,
		math.SmallestNonzeroFloat64, -1e-300, 3.0e-9, 1.5e-10, float64(math.MaxFloat32), 1.0 / 3}
	var values []any
	for _, s := range strs {
		values = append(values,
			&Note{ID: s, Title: s, Body: s, Tags: []string{s, s}},
			&Kinds{S: s, Name: Name(s), QuotedS: s, HTMLKey: s, NoTag: s, Unicode: s, Map: map[string][]int{s: {1}, s + "a": nil, "b" + s: {}}},
			&Omits{S: s, ZS: s},
			&Counts{Name(s): 1, Name(s + s): 2, "": 3, "A": 4, "a": 5, "<": 6, "é": 7},
		)
	}
	for _, f := range floats {
		f32 := float32(f)
		if math.Abs(f) > math.MaxFloat32 {
			f32 = math.MaxFloat32
		}
		values = append(values,
			&Kinds{F64: f, F32: f32, QuotedF: f, F64s: []float64{f, -f}, F32s: []float32{f32, -f32, f32 / 3}},
			&Omits{F: f, ZF: f, ZPoint: Point{X: f}},
			&Note{Score: f},
		)
	}
	values = append(values,
		&Note{}, &Note{Tags: []string{}, Due: &when, Rating: &rating, Created: when},
		&Kinds{}, &Kinds{Names: []Name{}, Bytes: []byte{}, Blob: Blob{1, 2, 3}, Raw: raw, RawP: &raw, Number: "-12.5e+3", QuotedN: "7",
			When: when, WhenP: &when, Map: map[string][]int{}, Nested: map[Name]map[string]*Level{"b": {"x": nil}, "a": {}},
			Notes: map[string]Note{"z": {}, "y": {ID: "y"}}, PtrPtr: new(*string), NoteList: []*Note{nil, {}}, Values: []Note{{}},
			QuotedP: &tr, QuotedU: 255, Uptr: 7, U64: math.MaxUint64, I64: math.MinInt64, I8: -128},
		&Kinds{Raw: json.RawMessage(`null`), Bytes: bytes.Repeat([]byte{0xff, 0, 'a'}, 100)},
		&Omits{}, &Omits{P: &rating, Sl: []int{}, M: map[string]int{}, A: [1]int{0}, ZSl: []int{}, ZM: map[string]string{}, ZP: &empty,
			ZTime: time.Time{}, ZTimeP: &time.Time{}, Zer: Zeroer{N: -1}, ZerP: &Zeroer{N: -1}, PZer: PtrZeroer{N: -1}},
		&Omits{Zer: Zeroer{N: 0}, ZerP: &Zeroer{N: 1}, PZer: PtrZeroer{N: 0}, ZArr: [2]int{0, 1}, Both: 1, QS: 2, Raw: json.RawMessage(`{}`), Num: "1", Time: when},
		&Embeds{}, &Embeds{Ptrs: &Ptrs{First: "f"}, Extra: &Extra{Origin: "o", Weight: 1.5}, Base: Base{Kind: "k", Shadow: 9}, Shadow: "s"},
		new(Counts), new(*Note), &Empty{},
	)
	for _, v := range values {
		for _, c := range cases {
			if reflect.TypeOf(v).Elem() == c.typ {
				same(t, c, v)
			}
		}
	}
}

// TestEncodeFallback: a value encoding/json refuses makes the tool encode
// the result again with AppendResult, which returns its error, the same
// as before; with no buffer (JSON-RPC) AppendResult encodes.
func TestEncodeFallback(t *testing.T) {
	ctx := context.Background()
	when := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, impl := range []*Impl{
		{KindsV: Kinds{F64: math.NaN()}},
		{KindsV: Kinds{F32s: []float32{float32(math.Inf(1))}}},
		{KindsV: Kinds{Raw: json.RawMessage(`{"a":`)}},
		{KindsV: Kinds{Number: "1.2.3"}},
		{KindsV: Kinds{When: when}},
		{KindsV: Kinds{When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("far", 24*3600))}},
		{KindsV: Kinds{S: "fine", F64: 1.5}},
	} {
		h := encodesHandler{impl}
		dst := []byte("dst")
		got, gotErr := h.appendKinds(ctx, nil, dst[:0])
		want, wantErr := rpcimpl.AppendResult(dst[:0], impl.KindsV, nil)
		sameResult(t, fmt.Sprintf("%+v", impl.KindsV), got, gotErr, want, wantErr)
		got, gotErr = h.serveKinds(ctx, nil)
		want, wantErr = rpcimpl.Result(impl.KindsV, nil)
		sameResult(t, fmt.Sprintf("%+v without a buffer", impl.KindsV), got, gotErr, want, wantErr)
	}
	// A result that is not an object, served over JSON-RPC only.
	for _, f := range []float64{math.NaN(), math.Inf(-1), 2.5} {
		got, gotErr := encodesHandler{&Impl{TotalV: f}}.serveTotal(ctx, nil)
		want, wantErr := rpcimpl.Result(f, nil)
		sameResult(t, fmt.Sprint("total ", f), got, gotErr, want, wantErr)
	}
}

// sameResult requires got and gotErr to be want and wantErr, errors by
// their text.
func sameResult(t *testing.T, what string, got []byte, gotErr error, want []byte, wantErr error) {
	t.Helper()
	if !bytes.Equal(got, want) || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Errorf("%s:\n got %s, %v\nwant %s, %v", what, got, gotErr, want, wantErr)
	}
}

// TestEncodeAllocs pins the allocations of encoding a note into a buffer
// large enough at none, and a map's at one (its sorted keys).
func TestEncodeAllocs(t *testing.T) {
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := Note{ID: "n1", Title: "a <title>", Tags: []string{"a", "b"}, Created: when, Due: &when, Score: 2.5}
	buf := make([]byte, 0, 1024)
	if got := testing.AllocsPerRun(100, func() { buf = appendNoteJSON(buf[:0], &n) }); got != 0 {
		t.Errorf("%v allocations to encode a note, want 0", got)
	}
	c := Counts{"a": 1, "b": 2, "c": 3}
	if got := testing.AllocsPerRun(100, func() { buf = appendCountsJSON(buf[:0], &c) }); got != 1 {
		t.Errorf("%v allocations to encode a map, want 1", got)
	}
}

// TestServeAsJSON serves random results of every method over JSON-RPC
// (serve<Method>: no buffer handed, the generated encoder writes into a
// pooled one) and requires encoding/json's bytes and error (rpcimpl.Result
// encodes &result); a result served before must not change after (it is
// a copy, not the pooled buffer).
func TestServeAsJSON(t *testing.T) {
	ctx := context.Background()
	impl := &Impl{}
	h := encodesHandler{impl}
	fields := reflect.ValueOf(impl).Elem()
	for _, s := range []struct {
		field string
		serve func(context.Context, json.RawMessage) (json.RawMessage, error)
	}{
		{"NoteV", h.serveNote}, {"KindsV", h.serveKinds}, {"OmitsV", h.serveOmits}, {"EmbedsV", h.serveEmbeds},
		{"CountsV", h.serveCounts}, {"MaybeV", h.serveMaybe}, {"FallbackV", h.serveFallback}, {"BigV", h.serveBig},
		{"TotalV", h.serveTotal}, {"ListV", h.serveList}, {"StampV", h.serveStamp}, {"RawV", h.serveRaw}, {"TableV", h.serveTable},
	} {
		t.Run(s.field, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(len(s.field))))
			f := fields.FieldByName(s.field)
			var prev, prevWant []byte
			for range 300 {
				f.Set(values.Value(r, f.Type()))
				want, wantErr := json.Marshal(f.Addr().Interface())
				got, err := s.serve(ctx, nil)
				if wantErr != nil {
					if err == nil {
						t.Fatalf("%#v: got %s, want an error (%v)", f.Interface(), got, wantErr)
					}
					continue
				}
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%#v:\n got %s, %v\nwant %s", f.Interface(), got, err, want)
				}
				if !bytes.Equal(prev, prevWant) {
					t.Fatalf("an earlier result changed: %s, was %s", prev, prevWant)
				}
				prev, prevWant = got, want
			}
		})
	}
}

// TestServeAllocs pins the allocations of serving a note over JSON-RPC
// (serve<Method>) at one, the copy of the result out of the pooled buffer,
// and a number's at one; encoding/json's rpcimpl.Result takes four for the
// note.
func TestServeAllocs(t *testing.T) {
	ctx := context.Background()
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	impl := &Impl{NoteV: Note{ID: "n1", Title: "a <title>", Tags: []string{"a", "b"}, Created: when, Due: &when, Score: 2.5}, TotalV: 1.5}
	h := encodesHandler{impl}
	for _, c := range []struct {
		name  string
		serve func(context.Context, json.RawMessage) (json.RawMessage, error)
		want  float64
	}{
		{"note", h.serveNote, 1},
		{"total", h.serveTotal, 1},
		{"note by encoding/json", func(context.Context, json.RawMessage) (json.RawMessage, error) { return rpcimpl.Result(impl.Note(ctx)) }, 4},
	} {
		if _, err := c.serve(ctx, nil); err != nil { // the pool's first buffer
			t.Fatal(err)
		}
		got := testing.AllocsPerRun(100, func() {
			if _, err := c.serve(ctx, nil); err != nil {
				panic(err)
			}
		})
		if got != c.want {
			t.Errorf("%s: %v allocations to serve, want %v", c.name, got, c.want)
		}
	}
}

// FuzzNoteEncode encodes notes of any text and number.
func FuzzNoteEncode(f *testing.F) {
	f.Add("id", "<b>&</b>", "\xff\u2028", 1.5, int64(0))
	f.Add("", "", "", 1e21, int64(-1))
	f.Fuzz(func(t *testing.T, id, title, tag string, score float64, sec int64) {
		if math.IsNaN(score) || math.IsInf(score, 0) {
			return
		}
		n := &Note{ID: id, Title: title, Body: tag, Tags: []string{tag}, Score: score, Created: time.Unix(sec%1e11, 0).UTC()}
		same(t, caseOf("Note", appendNoteJSON), n)
	})
}

// TestLeftToEncodingJSON: values the encoders leave to encoding/json
// (rpcimpl.AppendAny) that it refuses make the tool encode the result again
// with AppendResult, for its error; a recursive result type has no encoder
// and its tool encodes as before.
func TestLeftToEncodingJSON(t *testing.T) {
	ctx := context.Background()
	for _, f := range []Fallback{
		{Any: math.Inf(1)},
		{Anys: []any{1, func() {}}},
		{AnyMap: map[string]any{"c": make(chan int)}},
		{Tree: &Tree{Label: "<t>", Children: []*Tree{{Label: "c"}, nil}}},
		{Any: json.RawMessage(`{"a":`)},
	} {
		impl := &Impl{FallbackV: f}
		h := encodesHandler{impl}
		got, gotErr := h.appendFallback(ctx, nil, make([]byte, 0, 64))
		want, wantErr := rpcimpl.AppendResult(make([]byte, 0, 64), f, nil)
		sameResult(t, fmt.Sprintf("%+v", f), got, gotErr, want, wantErr)
	}
	impl := &Impl{TreeV: Tree{Label: "t", Children: []*Tree{{Label: "c"}}}}
	got, err := encodesHandler{impl}.appendTree(ctx, nil, make([]byte, 0, 64))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(impl.TreeV); !bytes.Equal(got, want) {
		t.Errorf("tree: got %s, want %s", got, want)
	}
}

// values makes the random results: times in several zones (years up to
// 9999 and nanoseconds), raw JSON with spaces and escapes, numbers, big
// integers made apart; interfaces hold, besides what encoding/json decodes
// into an any, a text marshaler and a struct.
var values = randjson.Values{
	Types: map[reflect.Type]func(*rand.Rand, reflect.Value){
		reflect.TypeFor[time.Time](): func(r *rand.Rand, v reflect.Value) {
			zones := []*time.Location{time.UTC, time.FixedZone("plus", 5*3600+30*60), time.FixedZone("minus", -8*3600)}
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(3.1e11)-6.2e10, r.Int64N(1e9)*int64(r.IntN(2))).In(zones[r.IntN(len(zones))])))
		},
		reflect.TypeFor[json.RawMessage](): func(r *rand.Rand, v reflect.Value) {
			raws := []string{`{"a":[1,2.5,"x"]}`, `[]`, `"s"`, `12`, `true`, ` { "b" : "<&>" } `, `"\u2028"`}
			if r.IntN(4) > 0 {
				v.SetBytes([]byte(raws[r.IntN(len(raws))]))
			}
		},
		reflect.TypeFor[json.Number](): func(r *rand.Rand, v reflect.Value) {
			if r.IntN(4) > 0 {
				v.SetString(strconv.FormatFloat(r.NormFloat64()*1e6, 'g', -1, 64))
			}
		},
		reflect.TypeFor[big.Int](): func(r *rand.Rand, v reflect.Value) {
			v.Set(reflect.ValueOf(new(big.Int).Lsh(big.NewInt(r.Int64()), uint(r.IntN(100)))).Elem())
		},
	},
	Others: []func(*rand.Rand) any{
		func(r *rand.Rand) any { return Mode(r.IntN(5)) },
		func(r *rand.Rand) any { return &Note{ID: randjson.String(r), Tags: []string{randjson.String(r)}} },
	},
}
