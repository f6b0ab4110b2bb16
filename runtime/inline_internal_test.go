package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestInline checks that a request Options.Inline accepts is served without a
// handler goroutine (no worker is ever started for it), that other requests
// and batches still get one, and that Inline is asked the method's name.
func TestInline(t *testing.T) {
	var asked []string
	h := HandlerFunc(func(ctx context.Context, req *Request) (json.RawMessage, error) {
		return json.RawMessage(`"` + req.Method + `"`), nil
	})
	f := newScriptFramer()
	c := NewConn(f, Options{Handler: h, AllowBatch: func() bool { return true }, Inline: func(method string) bool {
		asked = append(asked, method) // the reader asks, one message at a time
		return method == "fast"
	}})
	defer c.Close()
	exchange := func(msg, want string) {
		t.Helper()
		f.in <- []byte(msg)
		if got := string(<-f.out); !strings.Contains(got, want) {
			t.Fatalf("reply %s, want it to hold %s", got, want)
		}
	}
	for range 3 {
		exchange(`{"jsonrpc":"2.0","id":1,"method":"fast"}`, `"result":"fast"`)
	}
	if n := c.workers.Load(); n != 0 {
		t.Fatalf("%d handler goroutines after inline requests only, want 0", n)
	}
	exchange(`[{"jsonrpc":"2.0","id":2,"method":"fast"}]`, `"result":"fast"`)
	if n := c.workers.Load(); n != 1 {
		t.Fatalf("%d handler goroutines after a batch, want 1: a batch is never inline", n)
	}
	exchange(`{"jsonrpc":"2.0","id":3,"method":"slow"}`, `"result":"slow"`)
	if want := []string{"fast", "fast", "fast", "slow"}; strings.Join(asked, ",") != strings.Join(want, ",") {
		t.Errorf("Inline was asked %q, want %q", asked, want)
	}
}
