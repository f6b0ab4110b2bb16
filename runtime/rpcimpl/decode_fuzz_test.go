package rpcimpl_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

// FuzzDecoder checks the Decoder against encoding/json: on any input it
// must not panic, must accept exactly the JSON encoding/json accepts (less
// invalid UTF-8, which it rejects, and nesting beyond its limit), must read
// the same value, and must report every problem as invalid params.
func FuzzDecoder(f *testing.F) {
	for _, seed := range []string{
		`{"query":"go","limit":10,"tags":["a","b"],"author":{"name":"A","level":-3}}`,
		`["go",3,["t"],null]`, `{"a":[1,2.5e3,-0,true,false,null,"\u00e9\ud83d\ude00"]}`,
		`"\ud800"`, "\"\xff\"", `{"a":1,}`, `[1,]`, `01`, `1e999`, ` {"a" : { } } `, `[[[[]]]]`,
		`{"query":"","limit":0}`, `{"\u0061":1}`, `nul`, `"\/\b"`,
		// An escaped key, then an object with one: the first must be
		// kept before the value is read (it once took the second's text).
		`{"a\"b":{"c\"d":1},"e":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := rpcimpl.NewDecoder(b)
		got := d.Any()
		err := d.Finish()
		var want any
		wantErr := json.Unmarshal(b, &want)
		if err != nil {
			e, ok := err.(*runtime.Error)
			if !ok || e.Code != runtime.CodeInvalidParams || !strings.HasPrefix(e.Message, "invalid params: ") {
				t.Fatalf("%q: error %#v is not invalid params", b, err)
			}
			deep := strings.Contains(e.Message, "nested deeper")
			if wantErr == nil && utf8.Valid(b) && !deep {
				t.Fatalf("%q: rejected (%v), encoding/json accepts it", b, err)
			}
		} else {
			if wantErr != nil {
				t.Fatalf("%q: accepted as %#v, encoding/json says %v", b, got, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: read %#v, encoding/json reads %#v", b, got, want)
			}
		}
		// A generated decoder must not panic on it either, and lists at
		// most MaxProblems problems, each in the message and in the data.
		var p searchParams
		if err := decodeSearchParams(b, &p); err != nil {
			e := err.(*runtime.Error)
			var data struct{ Problems []rpcimpl.Problem }
			if err := json.Unmarshal(e.Data, &data); err != nil || len(data.Problems) == 0 || len(data.Problems) > rpcimpl.MaxProblems {
				t.Fatalf("%q: data %s (%v)", b, e.Data, err)
			}
			for _, pr := range data.Problems {
				if !strings.Contains(e.Message, pr.Message) {
					t.Fatalf("%q: message %q lacks the problem %q", b, e.Message, pr.Message)
				}
			}
		}
	})
}

// The same params decoded by the generated code and by encoding/json; the
// second does no validation at all.
var benchParams = []byte(`{"query":"golang generics","limit":25,"tags":["go","json"],"author":{"name":"Ann","email":"ann@example.com","level":3}}`)

func BenchmarkGeneratedDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchParams)))
	for b.Loop() {
		var p searchParams
		if err := decodeSearchParams(benchParams, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSONDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchParams)))
	for b.Loop() {
		var p searchParams
		if err := json.Unmarshal(benchParams, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReflectDecode is the reflection-based decoder generated code used
// before, for comparison.
func BenchmarkReflectDecode(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchParams)))
	for b.Loop() {
		var p searchParams
		if err := runtime.DecodeParams(benchParams, &p, &p.Query, &p.Limit, &p.Tags, &p.Author); err != nil {
			b.Fatal(err)
		}
	}
}
