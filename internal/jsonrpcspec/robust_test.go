package jsonrpcspec

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// badMessages each get an error reply; the connection must go on serving.
var badMessages = []struct {
	name, msg string
	code      int64
}{
	{"invalid JSON", `{"jsonrpc":"2.0","method":"subtract",`, runtime.CodeParseError},
	{"wrong param type", `{"jsonrpc":"2.0","method":"subtract","params":["a",1],"id":"types"}`, runtime.CodeInvalidParams},
	{"wrong named type", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":true,"subtrahend":1},"id":"named"}`, runtime.CodeInvalidParams},
	{"too many params", `{"jsonrpc":"2.0","method":"subtract","params":[1,2,3],"id":"count"}`, runtime.CodeInvalidParams},
	{"unknown field", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":2,"extra":3},"id":"extra"}`, runtime.CodeInvalidParams},
	{"unknown method", `{"jsonrpc":"2.0","method":"nope","id":"nope"}`, runtime.CodeMethodNotFound},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[\"\xff\"],\"id\":\"utf8\"}", runtime.CodeParseError},
	{"deep nesting", `{"jsonrpc":"2.0","method":"subtract","params":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `,"id":"deep"}`, runtime.CodeInvalidRequest},
	{"oversized", `{"jsonrpc":"2.0","method":"subtract","params":["` + strings.Repeat("x", 5<<20) + `"],"id":"big"}`, runtime.CodeInvalidRequest},
}

const validCall = `{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"ok"}`

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *runtime.Error  `json:"error"`
}

// TestBadInputKeepsServingStdio writes every bad message and then a valid
// call into one stdio server subprocess: each bad message gets its error,
// the valid call its result, and the process exits cleanly at EOF.
func TestBadInputKeepsServingStdio(t *testing.T) {
	var in strings.Builder
	for _, b := range badMessages {
		in.WriteString(b.msg + "\n")
	}
	in.WriteString(validCall + "\n")
	out := runStdioRaw(t, "newline", in.String())
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(badMessages)+1 {
		t.Fatalf("want %d replies, got %d:\n%s", len(badMessages)+1, len(lines), out)
	}
	codes := map[int64]int{}
	var gotValid bool
	for _, line := range lines {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("reply is not JSON: %q", line)
		}
		if string(r.ID) == `"ok"` {
			gotValid = string(r.Result) == "19"
			continue
		}
		if r.Error == nil {
			t.Fatalf("a bad message got a result: %s", line)
		}
		codes[r.Error.Code]++
	}
	if !gotValid {
		t.Fatalf("the valid call after the bad messages did not get 19:\n%s", out)
	}
	want := map[int64]int{}
	for _, b := range badMessages {
		want[b.code]++
	}
	for code, n := range want {
		if codes[code] != n {
			t.Errorf("error code %d: got %d replies, want %d (all codes: %v)", code, codes[code], n, codes)
		}
	}
}

// TestBadInputKeepsServingHTTP posts each bad message, then a valid call,
// to the generated dispatcher over HTTP, including a body cut short by a
// client that goes away.
func TestBadInputKeepsServingHTTP(t *testing.T) {
	srv := httptest.NewServer(rpchttp.NewHandler(NewSpecHandler(&Impl{}), rpchttp.Options{}))
	defer srv.Close()
	for _, b := range badMessages {
		t.Run(b.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(b.msg))
			if err != nil {
				t.Fatal(err)
			}
			var r reply
			err = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if err != nil || r.Error == nil || r.Error.Code != b.code {
				t.Fatalf("status %d, reply %+v, err %v; want error code %d", resp.StatusCode, r, err, b.code)
			}
			postValid(t, srv.URL)
		})
	}
	t.Run("client vanishes mid-body", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(`{"jsonrpc":"2.0","method":"subtract","params":[`))
			pw.CloseWithError(io.ErrUnexpectedEOF)
		}()
		if resp, err := http.Post(srv.URL, "application/json", pr); err == nil {
			resp.Body.Close()
		}
		postValid(t, srv.URL)
	})
}

func postValid(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(validCall))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r reply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || string(r.Result) != "19" {
		t.Fatalf("valid call afterwards: %+v, %v", r, err)
	}
}
