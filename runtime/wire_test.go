package runtime_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// specExamples are the examples of section 7 of the JSON-RPC 2.0 specification, byte
// for byte; an empty want means no reply at all.
var specExamples = []struct {
	name, in, want string
}{
	{"positional", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 1}`},
	{"positional reversed", `{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`,
		`{"jsonrpc": "2.0", "result": -19, "id": 2}`},
	{"named", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 3}`},
	{"named reordered", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`,
		`{"jsonrpc": "2.0", "result": 19, "id": 4}`},
	{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, ``},
	{"notification of unknown method", `{"jsonrpc": "2.0", "method": "foobar"}`, ``},
	{"unknown method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
		`{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}`},
	{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
		`{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
	{"invalid request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
		`{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
	{"batch with invalid JSON", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]`,
		`{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
	{"empty batch", `[]`,
		`{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
	{"batch of one non-object", `[1]`,
		`[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]`},
	{"batch of non-objects", `[1,2,3]`, `[
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
]`},
	{"batch", `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"} 
    ]`, `[
        {"jsonrpc": "2.0", "result": 7, "id": "1"},
        {"jsonrpc": "2.0", "result": 19, "id": "2"},
        {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
        {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
        {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
    ]`},
	{"batch of notifications", `[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`, ``},
	// Not in section 7, but required by section 4: a null id is a request.
	{"null id", `{"jsonrpc": "2.0", "method": "subtract", "params": [1, 1], "id": null}`,
		`{"jsonrpc": "2.0", "result": 0, "id": null}`},
	{"unknown method data", `{"jsonrpc":"2.0","method":"nope","id":7}`,
		`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"nope"},"id":7}`},
}

func TestSpecExamples(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			checkLeaks(t)
			f := tr.dial(t, runtime.Options{Handler: specHandler})
			for _, ex := range specExamples {
				in := ex.in
				if tr.oneLine {
					in = flatten(in)
				}
				got := roundTrip(t, f, in, ex.want == "")
				if ex.want != "" && !sameJSON(t, got, ex.want) {
					t.Errorf("%s:\n got %s\nwant %s", ex.name, got, ex.want)
				}
			}
			f.Close()
		})
	}
}

func TestSpecExamplesHTTP(t *testing.T) {
	checkLeaks(t)
	srv := httptest.NewServer(runtime.NewHTTPHandler(specHandler, runtime.HTTPOptions{}))
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	for _, ex := range specExamples {
		resp, err := client.Post(srv.URL, "application/json", bytes.NewReader([]byte(ex.in)))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if ex.want == "" {
			if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
				t.Errorf("%s: got %s %q, want 204 with an empty body", ex.name, resp.Status, body)
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %s, want 200", ex.name, resp.Status)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s: Content-Type %q", ex.name, ct)
		}
		if !sameJSON(t, string(body), ex.want) {
			t.Errorf("%s:\n got %s\nwant %s", ex.name, body, ex.want)
		}
	}
}
