package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// TestDiscover checks that rpc.discover answers the OpenRPC document that
// go generate wrote next to this file, and refuses params.
func TestDiscover(t *testing.T) {
	file, err := os.ReadFile("calculator.openrpc.json")
	if err != nil {
		t.Fatal(err)
	}
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: NewCalculatorHandler(&calculator{})})
	client := runtime.NewConn(b, runtime.Options{})
	t.Cleanup(func() { client.Close(); server.Close() })

	var got json.RawMessage
	if err := client.Call(context.Background(), "rpc.discover", nil, &got); err != nil {
		t.Fatal(err)
	}
	var gotDoc, wantDoc any
	if err := json.Unmarshal(got, &gotDoc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(file, &wantDoc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotDoc, wantDoc) {
		t.Errorf("rpc.discover answered a document other than calculator.openrpc.json:\n%s", got)
	}

	err = client.Call(context.Background(), "rpc.discover", map[string]int{"x": 1}, &got)
	var rpcErr *runtime.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeInvalidParams {
		t.Errorf("rpc.discover with params: got %v, want invalid params", err)
	}
}
