package runtime_test

import (
	"context"
	"log"
	"os"

	"github.com/rpcgen/rpcgen/internal/greeter"
	"github.com/rpcgen/rpcgen/runtime"
)

// A server's main serves a generated dispatcher on stdin and stdout until
// stdin ends. Here stdin holds two requests, one line each, and the output
// is what the server wrote to stdout; requests are handled concurrently, so
// the answers may come in either order.
func ExampleServeStdio() {
	restore := stdinFrom(`{"jsonrpc":"2.0","id":1,"method":"greeter.greet","params":{"name":"Ada"}}
{"jsonrpc":"2.0","id":2,"method":"greeter.wave"}
`)
	defer restore()

	handler := greeter.NewGreeterHandler(greeter.Impl{})
	if err := runtime.ServeStdio(context.Background(), runtime.Options{Handler: handler}); err != nil {
		log.Fatal(err)
	}
	// Unordered output:
	// {"jsonrpc":"2.0","id":1,"result":{"text":"Hello, Ada!"}}
	// {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found","data":"greeter.wave"}}
}

// stdinFrom makes os.Stdin a file holding input, as a client's pipe would,
// and returns the function that puts the real stdin back.
func stdinFrom(input string) (restore func()) {
	f, err := os.CreateTemp("", "stdin")
	if err != nil {
		log.Fatal(err)
	}
	os.Remove(f.Name())
	if _, err := f.WriteString(input); err != nil {
		log.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		log.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = f
	return func() { os.Stdin = saved; f.Close() }
}
