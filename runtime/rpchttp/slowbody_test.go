package rpchttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// TestSlowBodies: 2,000 connections that send the start of a body and stall
// are each answered 408 with a JSON-RPC error and closed once the body read
// deadline (30 s by default) has passed, in virtual time; a call that takes
// a minute after its body arrived is not cut.
func TestSlowBodies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := runtime.HandlerFunc(func(context.Context, *runtime.Request) (json.RawMessage, error) {
			time.Sleep(time.Minute) // the behaviour under test: a call of a minute (virtual time), which no deadline may cut
			return json.RawMessage(`"done"`), nil
		})
		ts := rpctest.NewPipeServer(t, rpchttp.NewHandler(h, rpchttp.Options{}), nil)
		dial := ts.Client().Transport.(*http.Transport).DialContext
		head := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\""
		rpctest.WantCutAt(t, rpctest.StallBodies(dial, 2000, head), 30*time.Second)
		client := rpchttp.NewClient(ts.URL)
		client.Client = ts.Client()
		var got string
		if err := client.Call(context.Background(), "slow", nil, &got); err != nil || got != "done" {
			t.Fatalf("a call of a minute: %q, %v", got, err)
		}
	})
}
