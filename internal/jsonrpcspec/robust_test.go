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
var badMessages = BadMessages

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
		in.WriteString(b.Msg + "\n")
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
		want[b.Code]++
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
		t.Run(b.Name, func(t *testing.T) {
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(b.Msg))
			if err != nil {
				t.Fatal(err)
			}
			var r reply
			err = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if err != nil || r.Error == nil || r.Error.Code != b.Code {
				t.Fatalf("status %d, reply %+v, err %v; want error code %d", resp.StatusCode, r, err, b.Code)
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
