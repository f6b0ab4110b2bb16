package runtime_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// TestShutdownAnswersLateRequests: a request that reaches a connection just
// after its Shutdown found nothing to wait for (sent as the shutdown began)
// is answered with the error saying so, instead of being lost with the
// connection; once the peer has been silent for a while, the connection
// closes. Over an in-memory connection in a synctest bubble, so the 50 ms
// are exact.
func TestShutdownAnswersLateRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ours, theirs := net.Pipe()
		defer theirs.Close()
		c := runtime.NewConn(runtime.NewLineFramer(ours, ours, 0), runtime.Options{Handler: echo})
		shut := make(chan error, 1)
		go func() { shut <- c.Shutdown(context.Background()) }()
		time.Sleep(50 * time.Millisecond)
		if _, err := theirs.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}` + "\n")); err != nil {
			t.Fatalf("a request 50 ms into the shutdown: %v", err)
		}
		got, err := readLine(theirs)
		if err != nil || !strings.Contains(got, `"id":1`) || !strings.Contains(got, "shutting down") {
			t.Fatalf("a request 50 ms into the shutdown got %s, %v", got, err)
		}
		start := time.Now()
		if err := <-shut; err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 150*time.Millisecond {
			t.Fatalf("Shutdown closed %v after the last request", d)
		}
	})
}

var echo = runtime.HandlerFunc(func(_ context.Context, req *runtime.Request) (json.RawMessage, error) {
	return req.Params, nil
})
