package shop

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// message is what a caller reads of a decode error: "" for none.
func message(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e, ok := err.(*runtime.Error)
	if !ok || e.Code != runtime.CodeInvalidParams {
		t.Fatalf("%v is not an invalid params error", err)
	}
	return strings.TrimPrefix(e.Message, "invalid params: ")
}

func TestSearchParams(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`{"query":"q","limit":5,"kind":"book","tags":[],"near":{"x":1,"y":2}}`, ""},
		{`["q",5,"music",["a"],null]`, ""},
		{`["q",5,"music",["a"]]`, `expected 5 params by position (query, limit, kind, tags, near), got 4`},
		{`{"query":"q","limit":5,"kind":"film","tags":[]}`, `"kind": must be one of "book", "music"`},
		{`{"query":"q","limt":5,"limit":5,"kind":"book","tags":[]}`, `unknown field "limt" (valid fields: query, limit, kind, tags, near)`},
		{`{"query":"q","limt":5}`, `4 problems: unknown field "limt" (valid fields: query, limit, kind, tags, near); missing required field "limit"; missing required field "kind"; missing required field "tags"`},
		// Every problem at once, each with its path.
		{`{"query":7,"limit":"5","kind":"film","tags":["a",1],"near":{"x":-181}}`, `6 problems: "query": expected a string, got 7; "limit": expected an integer, got "5"; "kind": must be one of "book", "music"; "tags[1]": expected a string, got 1; "near.x": must be >= -180; "near": missing required field "y"`},
		{`{"query":"q","kind":"book","tags":[]}`, `missing required field "limit"`},
		{`{"query":"q","limit":"5","kind":"book","tags":[]}`, `"limit": expected an integer, got "5"`},
		{`{"query":"q","limit":2.5,"kind":"book","tags":[]}`, `"limit": expected an integer, got 2.5`},
		{`{"query":"q","limit":5,"kind":"book","tags":["a",1]}`, `"tags[1]": expected a string, got 1`},
		{`{"query":"q","limit":5,"kind":"book","tags":[],"near":{"x":-181,"y":0}}`, `"near.x": must be >= -180`},
		{`{"query":"q","limit":5,"kind":"book","tags":[],"near":{"x":0,"y":90}}`, `"near.y": must be < 90`},
		{`{"query":"q","limit":5,"kind":"book","tags":[],"near":{"x":0}}`, `"near": missing required field "y"`},
		{``, `4 problems: missing required field "query"; missing required field "limit"; missing required field "kind"; missing required field "tags"`},
	} {
		var p shopSearchParams
		if got := message(t, decodeShopSearchParams([]byte(tc.raw), &p)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.raw, got, tc.want)
		}
	}
	var p shopSearchParams
	err := decodeShopSearchParams([]byte(`{"query":"q","limit":5,"kind":"book","tags":["x"],"near":{"x":1.5,"y":-2}}`), &p)
	want := shopSearchParams{Query: "q", Limit: 5, Kind: Book, Tags: []string{"x"}, Near: &Point{X: 1.5, Y: -2}}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("got %+v, %v; want %+v", p, err, want)
	}
}

const fullItem = `{"id":"a-1","rev":7,"name":"Tea","price":19.99,"stock":-3,"count":"12","level":3,
	"tags":["x","y"],"attrs":{"k":"v"},"added":"2025-01-02T03:04:05Z","extra":{"a":[1]},
	"blob":"aGk=","any":[1,"s",null],"size":[4,5],"where":{"x":1,"y":1},"wait":"1m30s"}`

func TestItemParams(t *testing.T) {
	var p Item
	if err := decodeShopPutParams([]byte(fullItem), &p); err != nil {
		t.Fatal(err)
	}
	want := Item{
		Base: &Base{ID: "a-1", Rev: 7}, Name: "Tea", Price: 19.99, Stock: -3, Count: 12, Level: LevelHigh,
		Tags: []string{"x", "y"}, Attrs: map[string]string{"k": "v"}, Added: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Extra: json.RawMessage(`{"a":[1]}`), Blob: []byte("hi"), Any: []any{1.0, "s", nil}, Size: [2]int{4, 5},
		Where: &Point{X: 1, Y: 1}, Wait: Duration(90 * time.Second),
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got  %+v\nwant %+v", p, want)
	}
	// What encoding/json reads from the same input, for the types both read.
	var viaJSON Item
	if err := json.Unmarshal([]byte(fullItem), &viaJSON); err != nil || !reflect.DeepEqual(p, viaJSON) {
		t.Errorf("encoding/json reads %+v, %v", viaJSON, err)
	}

	for _, tc := range []struct{ raw, want string }{
		{`{"name":"Tea","price":1}`, ""},
		{`[{"name":"Tea","price":1}]`, ""},
		{`{"price":1}`, `missing required field "name"`},
		{`{"name":"","price":1}`, `"name": shorter than minLength 1`},
		{`{"name":"ÄÖÜäöüßÄÖÜ","price":1}`, ""}, // 10 characters, 20 bytes
		{`{"name":"ÄÖÜäöüßÄÖÜx","price":1}`, `"name": longer than maxLength 10`},
		{`{"name":"Tea","price":1.005}`, `"price": must be a multiple of 0.01`},
		{`{"name":"Tea","price":-1}`, `"price": must be >= 0`},
		{`{"name":"Tea","price":1,"stock":1001}`, `"stock": must be <= 1000`},
		{`{"name":"Tea","price":1,"stock":40000}`, `"stock": expected an integer between -32768 and 32767, got 40000`},
		{`{"name":"Tea","price":1,"id":"Bad Id"}`, `"id": must match the pattern ^[a-z0-9-]+$`},
		{`{"name":"Tea","price":1,"rev":-1}`, `"rev": expected an integer between 0 and 4294967295, got -1`},
		{`{"name":"Tea","price":1,"count":12}`, `"count": expected a string holding the value, got 12`},
		{`{"name":"Tea","price":1,"count":"x"}`, `"count": malformed JSON at offset 0: invalid character 'x' looking for the beginning of a value`},
		{`{"name":"Tea","price":1,"level":2}`, `"level": must be one of 1, 3`},
		{`{"name":"Tea","price":1,"stockByKind":{"book":1,"music":2}}`, ""},
		{`{"name":"Tea","price":1,"stockByKind":{"book":1,"film":2}}`, `"stockByKind": key "film": must be one of "book", "music"`},
		{`{"name":"Tea","price":1,"queue":{"1":4,"3":0}}`, ""},
		{`{"name":"Tea","price":1,"queue":{"1":4,"2":0}}`, `"queue": key "2": must be one of "1", "3"`},
		{`{"name":"Tea","price":1,"queue":{"x":4}}`, `"queue": expected a value for Go type shop.Level, got an object`},
		{`{"name":"Tea","price":1,"tags":["a","b","a"]}`, `"tags": must not hold the same item twice (uniqueItems)`},
		{`{"name":"Tea","price":1,"tags":["a","b","c","d"]}`, `"tags": more items than maxItems 3`},
		{`{"name":"Tea","price":1,"attrs":{"a":1}}`, `"attrs.a": expected a string, got 1`},
		{`{"name":"Tea","price":1,"attrs":{"a":"1","b":"2","c":"3"}}`, `"attrs": more properties than maxProperties 2`},
		{`{"name":"Tea","price":1,"added":"today"}`, `"added": expected a date-time string (RFC 3339), got "today"`},
		{`{"name":"Tea","price":1,"blob":"%%"}`, `"blob": expected a base64 string, got "%%"`},
		{`{"name":"Tea","price":1,"size":[1,2,3]}`, `"size": must have exactly 2 items`},
		{`{"name":"Tea","price":1,"where":{"x":1,"y":1,"z":1}}`, `"where": unknown field "z" (valid fields: x, y)`},
		{`{"name":"Tea","price":1,"wait":"soon"}`, `"wait": time: invalid duration "soon"`},
		{`{"name":"Tea","price":1,"Name":"x"}`, `unknown field "Name" (valid fields: id, rev, name, price, stock, count, level, tags, attrs, stockByKind, queue, added, extra, blob, any, size, where, wait)`},
	} {
		var p Item
		if got := message(t, decodeShopPutParams([]byte(tc.raw), &p)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.raw, got, tc.want)
		}
	}
}

func TestPlanParams(t *testing.T) {
	var p Plan
	raw := `{"step":"a","then":[{"step":"b","even":4},{"step":"c","then":[{"step":"d"}]}]}`
	if err := decodeShopScheduleParams([]byte(raw), &p); err != nil {
		t.Fatal(err)
	}
	want := Plan{Step: "a", Then: []*Plan{{Step: "b", Even: 4}, {Step: "c", Then: []*Plan{{Step: "d"}}}}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got %+v", p)
	}
	for _, tc := range []struct{ raw, want string }{
		{`{"step":"a","then":[{"step":"b"},{"step":"c","then":[{}]}]}`, `"then[1].then[0]": missing required field "step"`},
		{`{"step":"a","then":[{"step":"b","even":3}]}`, `"then[0].even": must be a multiple of 2`},
		{`{"step":"a","then":[null]}`, ""},
		{`null`, `missing required field "step"`},
	} {
		var p Plan
		if got := message(t, decodeShopScheduleParams([]byte(tc.raw), &p)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.raw, got, tc.want)
		}
	}
}

// The generated decoders allocate only what the values need.
func TestDecodeAllocs(t *testing.T) {
	raw := []byte(`{"query":"q","limit":5,"kind":"book","tags":[]}`)
	allocs := testing.AllocsPerRun(100, func() {
		var p shopSearchParams
		if err := decodeShopSearchParams(raw, &p); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 { // the query and kind strings
		t.Errorf("%v allocations per decode, want at most 2", allocs)
	}
}

var benchItem = []byte(`{"id":"a-1","name":"Tea","price":19.99,"stock":3,"level":3,"tags":["x","y"],"where":{"x":1,"y":1}}`)

func BenchmarkGeneratedDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var p Item
		if err := decodeShopPutParams(benchItem, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodingJSONDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var p Item
		if err := json.Unmarshal(benchItem, &p); err != nil {
			b.Fatal(err)
		}
	}
}
