package rpcimpl_test

import (
	"encoding/json"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

// point is decoded by readPoint, written as rpcgen writes a result decoder.
type point struct {
	X, Y int
	Tag  string
}

var pointFields = rpcimpl.NewFields("x", "y", "tag")

func readPoint(d *rpcimpl.Decoder, p *point) {
	if !d.Object() {
		return
	}
	var key []byte
	for d.NextKey(&key) {
	match:
		switch string(key) {
		case "x":
			p.X = d.Int()
		case "y":
			p.Y = d.Int()
		case "tag":
			p.Tag = d.String()
		default:
			if d.FoldKey(&key, pointFields) {
				goto match
			}
			d.Skip()
		}
	}
}

// TestResultDecoder: a result decoder reads as encoding/json does (keys in
// any case, unknown members skipped, null as the zero value) and reports a
// value of the wrong type by its path, as a plain error.
func TestResultDecoder(t *testing.T) {
	for _, tc := range []struct{ raw, want, err string }{
		{raw: `{"x":1,"y":2,"tag":"a"}`, want: `{"X":1,"Y":2,"Tag":"a"}`},
		{raw: `{"X":1,"Y":2,"TAG":"a","other":[1,{"x":5}]}`, want: `{"X":1,"Y":2,"Tag":"a"}`},
		{raw: `{"x":null,"y":2,"tag":null}`, want: `{"X":0,"Y":2,"Tag":""}`},
		{raw: `null`, want: `{"X":0,"Y":0,"Tag":""}`},
		{raw: `{"x":"1"}`, err: `"x": expected an integer, got "1"`},
		{raw: `{"x":"1","y":true}`, err: `"x": expected an integer, got "1" (and 1 more problems)`},
		{raw: `[1]`, err: `expected an object, got an array`},
		{raw: `{"x":1`, err: `malformed JSON at offset 6: unexpected end of JSON input`},
	} {
		r := rpcimpl.NewResultOf(readPoint)
		err := r.DecodeResult([]byte(tc.raw))
		var jsonErr error
		if tc.err != "" {
			jsonErr = json.Unmarshal([]byte(tc.raw), new(point))
		}
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s: error %v, want %s", tc.raw, err, tc.err)
		case tc.err != "" && jsonErr == nil:
			t.Errorf("%s: encoding/json accepts it", tc.raw)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.raw, err)
		case tc.err == "":
			got, _ := json.Marshal(r.Value)
			var want point
			if err := json.Unmarshal([]byte(tc.raw), &want); err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || r.Value != want {
				t.Errorf("%s: read %s, want %s (encoding/json: %+v)", tc.raw, got, tc.want, want)
			}
		}
	}
}

// TestResultDecoderDeep: a result may nest as deeply as encoding/json
// allows, deeper than params may.
func TestResultDecoderDeep(t *testing.T) {
	deep := make([]byte, 0, 2000)
	for range 500 {
		deep = append(deep, '[')
	}
	for range 500 {
		deep = append(deep, ']')
	}
	r := rpcimpl.NewResultOf(func(d *rpcimpl.Decoder, v *any) { *v = d.Any() })
	if err := r.DecodeResult(deep); err != nil {
		t.Fatal(err)
	}
	d := rpcimpl.NewDecoder(deep)
	d.Any()
	if d.Finish() == nil {
		t.Error("params nested 500 deep accepted")
	}
}
