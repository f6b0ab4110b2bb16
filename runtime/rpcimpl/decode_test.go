package rpcimpl_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcimpl"
)

// searchParams and decodeSearchParams are what rpcgen generates for
// Search(ctx, query string, limit int, tags []string, author *Author).
type searchParams struct {
	Query  string   `json:"query"`
	Limit  int      `json:"limit"`
	Tags   []string `json:"tags"`
	Author *author  `json:"author"`
}

type author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	Level int8   `json:"level,omitempty"`
}

var searchFields = rpcimpl.NewFields("query", "limit", "tags", "author")

func decodeSearchParams(raw []byte, p *searchParams) error {
	d := rpcimpl.NewDecoder(raw)
	d.Params(searchFields)
	var hasQuery, hasLimit, hasTags bool
	var key []byte
	for d.NextKey(&key) {
		switch string(key) {
		case "query":
			hasQuery = true
			p.Query = d.String()
			if utf8.RuneCountInString(p.Query) < 1 {
				d.Fail("shorter than minLength 1")
			}
		case "limit":
			hasLimit = true
			p.Limit = d.Int()
			if p.Limit < 1 {
				d.Fail("must be >= 1")
			}
		case "tags":
			hasTags = true
			if d.Null() {
				p.Tags = nil
			} else if d.Array() {
				p.Tags = []string{}
				for d.NextElem() {
					elem := d.String()
					if utf8.RuneCountInString(elem) > 5 {
						d.Fail("longer than maxLength 5")
					}
					p.Tags = append(p.Tags, elem)
				}
			}
			if len(p.Tags) > 3 {
				d.Fail("more items than maxItems 3")
			}
		case "author":
			if d.Null() {
				p.Author = nil
			} else {
				p.Author = new(author)
				readAuthor(&d, p.Author)
			}
		default:
			d.UnknownField(key, searchFields)
		}
	}
	if !hasQuery {
		d.MissingField("query")
	}
	if !hasLimit {
		d.MissingField("limit")
	}
	if !hasTags {
		d.MissingField("tags")
	}
	return d.Finish()
}

var authorFields = rpcimpl.NewFields("name", "email", "level")

func readAuthor(d *rpcimpl.Decoder, p *author) {
	if !d.Object() {
		return
	}
	var hasName bool
	var key []byte
	for d.NextKey(&key) {
		switch string(key) {
		case "name":
			hasName = true
			p.Name = d.String()
		case "email":
			p.Email = d.String()
		case "level":
			p.Level = d.Int8()
		default:
			d.UnknownField(key, authorFields)
		}
	}
	if !hasName {
		d.MissingField("name")
	}
}

func decodeAuthorParams(raw []byte, p *author) error {
	d := rpcimpl.NewDecoder(raw)
	d.StructParams()
	readAuthor(&d, p)
	return d.Finish()
}

func TestDecodeParamsGenerated(t *testing.T) {
	cases := []struct {
		raw     string
		want    searchParams
		wantErr string
	}{
		{raw: `{"query":"go","limit":10,"tags":["a","b"]}`, want: searchParams{Query: "go", Limit: 10, Tags: []string{"a", "b"}}},
		{raw: ` {"tags":[],"limit":1e1,"query":"x\u00e9","author":{"name":"Ann","level":-3}} `,
			want: searchParams{Query: "xé", Limit: 10, Tags: []string{}, Author: &author{Name: "Ann", Level: -3}}},
		{raw: `{"query":"go","limit":2,"tags":null,"author":null}`, want: searchParams{Query: "go", Limit: 2}},
		{raw: `["go",3,["t"]]`, wantErr: `expected 4 params by position (query, limit, tags, author), got 3`},
		{raw: `["go",3,["t"],{"name":"N"}]`, want: searchParams{Query: "go", Limit: 3, Tags: []string{"t"}, Author: &author{Name: "N"}}},
		{raw: `["go",3,["t"],null,5]`, wantErr: `expected 4 params by position (query, limit, tags, author), got 5`},
		{raw: `["go","3",["t"],null]`, wantErr: `"limit": expected an integer, got "3"`},
		{raw: `{"query":"go","limit":1,"tags":[],"query":"again"}`, want: searchParams{Query: "again", Limit: 1, Tags: []string{}}},
		{raw: ``, wantErr: `3 problems: missing required field "query"; missing required field "limit"; missing required field "tags"`},
		{raw: `null`, wantErr: `3 problems: missing required field "query"; missing required field "limit"; missing required field "tags"`},
		{raw: `{}`, wantErr: `3 problems: missing required field "query"; missing required field "limit"; missing required field "tags"`},
		{raw: `{"query":"go","tags":[]}`, wantErr: `missing required field "limit"`},
		{raw: `{"query":"go","lmit":5}`, wantErr: `3 problems: unknown field "lmit" (valid fields: query, limit, tags, author); missing required field "limit"; missing required field "tags"`},
		{raw: `{"query":"go","lmit":5,"limit":1,"tags":[]}`, wantErr: `unknown field "lmit" (valid fields: query, limit, tags, author)`},
		{raw: `{"Query":"go","limit":1,"tags":[]}`, wantErr: `2 problems: unknown field "Query" (valid fields: query, limit, tags, author); missing required field "query"`},
		{raw: `{"query":"go","limit":"ten","tags":[]}`, wantErr: `"limit": expected an integer, got "ten"`},
		{raw: `{"query":"go","tags":[],"limit":"` + strings.Repeat("x", 60) + `"}`, wantErr: `"limit": expected an integer, got a string`},
		{raw: `{"query":"go","limit":1.5,"tags":[]}`, wantErr: `"limit": expected an integer, got 1.5`},
		{raw: `{"query":"go","limit":0,"tags":[]}`, wantErr: `"limit": must be >= 1`},
		{raw: `{"query":"","limit":1,"tags":[]}`, wantErr: `"query": shorter than minLength 1`},
		{raw: `{"query":null,"limit":1,"tags":[]}`, wantErr: `"query": expected a string, got null`},
		// Every problem at once, one per value: a value that cannot be read
		// is not also checked against its constraints.
		{raw: `{"query":"","limit":"ten","tags":["a","toolong",3,"b"],"author":{"name":7,"level":300,"nme":1},"x":{"y":[1,2]}}`,
			wantErr: `9 problems: "query": shorter than minLength 1; "limit": expected an integer, got "ten"; "tags[1]": longer than maxLength 5; "tags[2]": expected a string, got 3; "tags": more items than maxItems 3; "author.name": expected a string, got 7; "author.level": expected an integer between -128 and 127, got 300; "author": unknown field "nme" (valid fields: name, email, level); unknown field "x" (valid fields: query, limit, tags, author)`},
		{raw: `{"query":"go","limit":1,"tags":["a","b",3]}`, wantErr: `"tags[2]": expected a string, got 3`},
		{raw: `{"query":"go","limit":1,"tags":["a","toolong"]}`, wantErr: `"tags[1]": longer than maxLength 5`},
		{raw: `{"query":"go","limit":1,"tags":["a","b","c","d"]}`, wantErr: `"tags": more items than maxItems 3`},
		{raw: `{"query":"go","limit":1,"tags":{}}`, wantErr: `"tags": expected an array, got an object`},
		{raw: `{"query":"go","limit":1,"tags":[],"author":{}}`, wantErr: `"author": missing required field "name"`},
		{raw: `{"query":"go","limit":1,"tags":[],"author":{"name":"A","nme":1}}`, wantErr: `"author": unknown field "nme" (valid fields: name, email, level)`},
		{raw: `{"query":"go","limit":1,"tags":[],"author":{"name":7}}`, wantErr: `"author.name": expected a string, got 7`},
		{raw: `{"query":"go","limit":1,"tags":[],"author":{"name":"A","level":300}}`, wantErr: `"author.level": expected an integer between -128 and 127, got 300`},
		{raw: `{"query":"go","limit":1,"tags":[],"author":[]}`, wantErr: `"author": expected an object, got an array`},
		{raw: `{"q\"y":1,"query":"go","limit":1,"tags":[]}`, wantErr: `unknown field "q\"y" (valid fields: query, limit, tags, author)`},
		// Malformed JSON stops decoding, after what was found before it.
		{raw: `{"limit":"ten","query":"go" "tags":[]}`, wantErr: `2 problems: "limit": expected an integer, got "ten"; malformed JSON at offset 28: expected ',' or '}' after an object member`},
		{raw: `{"query":"go" "limit":1}`, wantErr: `malformed JSON at offset 14: expected ',' or '}' after an object member`},
		{raw: `{"query":"go","limit":1,"tags":[],"author":{"name":"A",}}`, wantErr: `"author": malformed JSON at offset 55: expected an object member after ','`},
		{raw: `{"query":"go","limit":1,"tags":["a"]} x`, wantErr: `malformed JSON at offset 38: unexpected data after the value`},
		{raw: `{"query":"go","limit":1,"tags":["a"]`, wantErr: `malformed JSON at offset 36: unexpected end of JSON input`},
		{raw: `"str"`, wantErr: `expected an object, got "str"`},
		{raw: "{\"query\":\"\xff\"}", wantErr: `"query": invalid UTF-8 in a string`},
		{raw: `{"query":"a` + "\n" + `b"}`, wantErr: `"query": malformed JSON at offset 11: control character in a string`},
	}
	for _, tc := range cases {
		var p searchParams
		err := decodeSearchParams([]byte(tc.raw), &p)
		if tc.wantErr != "" {
			e := rpctest.WantError(t, err, runtime.CodeInvalidParams)
			if want := "invalid params: " + tc.wantErr; e.Message != want {
				t.Errorf("%s:\n got %s\nwant %s", tc.raw, e.Message, want)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(p, tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.raw, p, err, tc.want)
		}
	}
}

func TestDecodeStructParams(t *testing.T) {
	cases := []struct{ raw, want string }{
		{`{"name":"A"}`, ""},
		{`[{"name":"A"}]`, ""},
		{` [ {"name":"A"} ] `, ""},
		{`[{"name":"A"},{"name":"B"}]`, `invalid params: expected 1 param by position, got 2`},
		{`[]`, `invalid params: expected 1 param by position, got 0`},
		{`[{"name":1}]`, `invalid params: "name": expected a string, got 1`},
		{`[{"name":"A"}`, `invalid params: malformed JSON at offset 13: expected ']' after the params`},
		{`null`, `invalid params: missing required field "name"`},
		{`true`, `invalid params: expected an object, got true`},
	}
	for _, tc := range cases {
		var p author
		err := decodeAuthorParams([]byte(tc.raw), &p)
		got := ""
		if err != nil {
			got = rpctest.WantError(t, err, runtime.CodeInvalidParams).Message
		}
		if got != tc.want || tc.want == "" && p.Name != "A" {
			t.Errorf("%s: got %q (%+v), want %q", tc.raw, got, p, tc.want)
		}
	}
}

func TestNoParams(t *testing.T) {
	for raw, want := range map[string]string{
		``: "", `null`: "", `{}`: "", ` [ ] `: "",
		`{"a":1}`: `invalid params: unknown field "a" (no fields are accepted)`,
		`[1,2]`:   `invalid params: expected no params, got 2 by position`,
		`5`:       `invalid params: expected an object, got 5`,
	} {
		err := rpcimpl.NoParams([]byte(raw))
		got := ""
		if err != nil {
			got = rpctest.WantError(t, err, runtime.CodeInvalidParams).Message
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", raw, got, want)
		}
	}
}

// TestDecodeAllocs holds decoding to the strings it must make.
func TestDecodeAllocs(t *testing.T) {
	raw := []byte(`{"query":"golang","limit":25,"tags":[]}`)
	allocs := testing.AllocsPerRun(100, func() {
		var p searchParams
		if err := decodeSearchParams(raw, &p); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 { // the query string
		t.Errorf("%v allocations, want at most 1", allocs)
	}
}

// TestDecodeProblemsData checks the data of an invalid-params error: each
// problem with its path, and no more than MaxProblems, the last of which
// says that decoding stopped.
func TestDecodeProblemsData(t *testing.T) {
	var p searchParams
	err := decodeSearchParams([]byte(`{"query":7,"limit":0,"tags":[]}`), &p)
	e := rpctest.WantError(t, err, runtime.CodeInvalidParams)
	want := `{"problems":[{"path":"query","message":"expected a string, got 7"},{"path":"limit","message":"must be >= 1"}]}`
	if string(e.Data) != want {
		t.Errorf("data:\n got %s\nwant %s", e.Data, want)
	}
	err = decodeSearchParams([]byte(`{}`), &p)
	e = rpctest.WantError(t, err, runtime.CodeInvalidParams)
	if want := `{"problems":[{"message":"missing required field \"query\""},{"message":"missing required field \"limit\""},{"message":"missing required field \"tags\""}]}`; string(e.Data) != want {
		t.Errorf("data:\n got %s\nwant %s", e.Data, want)
	}

	// A flood of bad members: MaxProblems of them, then decoding stops.
	var b strings.Builder
	b.WriteString(`{"query":"go","limit":1,"tags":[`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("1")
	}
	b.WriteString(`]}`)
	err = decodeSearchParams([]byte(b.String()), &p)
	e = rpctest.WantError(t, err, runtime.CodeInvalidParams)
	var data struct{ Problems []rpcimpl.Problem }
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Problems) != rpcimpl.MaxProblems {
		t.Fatalf("%d problems listed, want %d: %s", len(data.Problems), rpcimpl.MaxProblems, e.Message)
	}
	if last := data.Problems[rpcimpl.MaxProblems-1]; last.Path != "tags[19]" || !strings.HasSuffix(last.Message, "(and decoding stopped here: fix these and call again)") {
		t.Errorf("last problem: %+v", last)
	}
	if !strings.HasPrefix(e.Message, "invalid params: 20 problems: \"tags[0]\": expected a string, got 1; ") {
		t.Errorf("message: %s", e.Message)
	}
}
