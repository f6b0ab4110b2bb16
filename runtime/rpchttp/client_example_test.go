package rpchttp_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/rpcgen/rpcgen/internal/greeter"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// A generated dispatcher served over HTTP POST, and called through the
// generated client. A real server would mount the handler on its own mux:
// http.Handle("/rpc", rpchttp.NewHandler(...)).
func ExampleNewClient() {
	srv := httptest.NewServer(rpchttp.NewHandler(greeter.NewGreeterHandler(greeter.Impl{}), rpchttp.Options{}))
	defer srv.Close()

	client := greeter.NewGreeterClient(rpchttp.NewClient(srv.URL)) // a greeter.Greeter
	ctx := context.Background()
	hello, err := client.Greet(ctx, "Ada")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(hello.Text)

	// The implementation's error comes back as a *runtime.Error.
	_, err = client.Greet(ctx, "")
	var rpcErr *runtime.Error
	if errors.As(err, &rpcErr) {
		fmt.Println(rpcErr.Code, rpcErr.Message)
	}
	// Output:
	// Hello, Ada!
	// -32000 greet whom? the name is empty
}
