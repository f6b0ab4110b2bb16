package rpchttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// greet is a hand-written handler; rpcgen generates handlers like it from
// an interface.
var greet = runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	switch req.Method {
	case "greet":
		var p struct {
			Name string `json:"name"`
		}
		var name string
		if err := runtime.DecodeParams(req.Params, &p, &name); err != nil {
			return nil, err
		}
		if p.Name == "" {
			p.Name = name
		}
		return runtime.EncodeResult("hello, " + p.Name)
	default:
		return nil, runtime.ErrMethodNotFound(req.Method)
	}
})

// Plain JSON-RPC over HTTP POST, with a batch.
func ExampleNewHandler() {
	srv := httptest.NewServer(rpchttp.NewHandler(greet, rpchttp.Options{}))
	defer srv.Close()
	client := rpchttp.NewClient(srv.URL)

	var first, second string
	calls := []*runtime.BatchCall{
		{Method: "greet", Params: []string{"ada"}, Result: &first},
		{Method: "greet", Params: map[string]string{"name": "grace"}, Result: &second},
		{Method: "greet", Params: []string{"nobody listens"}, Notification: true},
	}
	if err := client.Batch(context.Background(), calls); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first)
	fmt.Println(second)
	// Output:
	// hello, ada
	// hello, grace
}
