package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

func TestAppendRequest(t *testing.T) {
	for _, tc := range []struct {
		id     int64
		method string
		params any
		want   string
	}{
		{7, "sum", []int{1, 2}, `{"jsonrpc":"2.0","id":7,"method":"sum","params":[1,2]}`},
		{0, "note", nil, `{"jsonrpc":"2.0","method":"note"}`},
		{-1, "a\"b", json.RawMessage(`{"x":1}`), `{"jsonrpc":"2.0","id":-1,"method":"a\"b","params":{"x":1}}`},
	} {
		got, err := runtime.AppendRequest([]byte("x"), tc.id, tc.method, tc.params)
		if err != nil || string(got) != "x"+tc.want {
			t.Errorf("got %s, %v; want x%s", got, err, tc.want)
		}
	}
	got, err := runtime.AppendRequest([]byte("x"), 1, "m", json.RawMessage(`{`))
	if err == nil || string(got) != "x" || !strings.HasPrefix(err.Error(), "encode params of m: ") {
		t.Errorf("invalid params: %s, %v", got, err)
	}
}

func TestAppendErrorResponse(t *testing.T) {
	for _, tc := range []struct {
		id   runtime.ID
		err  *runtime.Error
		want string
	}{
		{runtime.ID{}, runtime.MessageTooLarge(10), `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message exceeds the size limit of 10 bytes"}}`},
		{runtime.StringID("a"), runtime.ErrMethodNotFound("m"), `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found","data":"m"}}`},
		{runtime.Int64ID(3), &runtime.Error{Code: 1, Message: "x", Data: json.RawMessage(`{bad`)}, `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`},
	} {
		if got := string(runtime.AppendErrorResponse(nil, tc.id, tc.err)); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestParseResponse(t *testing.T) {
	r, err := runtime.ParseResponse([]byte(` {"jsonrpc":"2.0","result":{"a":[1]},"id":"x"} `))
	if err != nil || r.ID != runtime.StringID("x") || string(r.Result) != `{"a":[1]}` || r.Err() != nil {
		t.Fatalf("success: %+v, %v", r, err)
	}
	var got struct{ A []int }
	if err := r.Decode("m", &got); err != nil || len(got.A) != 1 {
		t.Errorf("Decode: %+v, %v", got, err)
	}
	if err := r.Decode("m", nil); err != nil {
		t.Errorf("Decode into nil: %v", err)
	}
	var n int
	if err := r.Decode("m", &n); err == nil || !strings.HasPrefix(err.Error(), "decode result of m: ") {
		t.Errorf("Decode into an int: %v", err)
	}

	r, err = runtime.ParseResponse([]byte(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":"m"},"id":null}`))
	if err != nil || r.ID.String() != "null" || r.Result != nil {
		t.Fatalf("error: %+v, %v", r, err)
	}
	if e := rpctest.WantError(t, r.Err(), runtime.CodeMethodNotFound); string(e.Data) != `"m"` {
		t.Errorf("data %s", e.Data)
	}
	rpctest.WantError(t, r.Decode("m", &n), runtime.CodeMethodNotFound)

	r, err = runtime.ParseResponse([]byte(`{"jsonrpc":"2.0","error":"no","id":1}`))
	if err != nil || r.Err() == nil || errors.As(r.Err(), new(*runtime.Error)) {
		t.Errorf("malformed error object: %+v, %v, %v", r, err, r.Err())
	}

	for _, bad := range []string{``, `{`, `[]`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","method":"m","result":1,"id":1}`} {
		if _, err := runtime.ParseResponse([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// With RejectResponses a Processor answers a response like any other invalid request,
// as the HTTP handler of package rpchttp needs.
func TestProcessorRejectResponses(t *testing.T) {
	p := runtime.NewProcessor(runtime.Options{Handler: specHandler, RejectResponses: true})
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":3,"result":{}}`:                        `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}}`,
		`[{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"x"}}]`: `[{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request"}}]`,
	} {
		if got := string(p.Process(context.Background(), []byte(in), nil)); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}
