package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rpcgen/rpcgen/runtime"
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

// Two connections joined by an in-memory pipe: one serves, the other calls.
func ExamplePipe() {
	a, b := runtime.Pipe()
	server := runtime.NewConn(a, runtime.Options{Handler: greet})
	defer server.Close()
	client := runtime.NewConn(b, runtime.Options{})
	defer client.Close()

	var reply string
	err := client.Call(context.Background(), "greet", map[string]string{"name": "gopher"}, &reply)
	fmt.Println(reply, err)

	err = client.Call(context.Background(), "wave", nil, nil)
	var rpcErr *runtime.Error
	if errors.As(err, &rpcErr) {
		fmt.Println(rpcErr.Code, rpcErr.Message)
	}
	// Output:
	// hello, gopher <nil>
	// -32601 Method not found
}
