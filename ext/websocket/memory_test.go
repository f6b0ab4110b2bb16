package websocket_test

import (
	"strings"
	"testing"

	goruntime "runtime"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/runtime"
)

// heapInuse returns the heap in use after a collection.
func heapInuse() int64 {
	var m goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// TestOversizedMessageFreesItsBuffer sends one message over the size limit
// on each of 40 connections, which stay open: each gets its error and
// serves on, and the server keeps no buffer of the message's size for any
// of them (it kept one twice the limit per connection, for as long as the
// connection lived).
func TestOversizedMessageFreesItsBuffer(t *testing.T) {
	const conns, limit = 40, 256 << 10
	url, _, _ := serve(t, &wsrpc.Options{Options: runtime.Options{MaxMessageSize: limit}, PingInterval: -1})
	big := []byte(`["` + strings.Repeat("x", limit+limit/2) + `"]`)
	framers := make([]runtime.Framer, conns)
	for i := range framers {
		f, _ := raw(t, url)
		defer f.Close()
		framers[i] = f
	}
	before := heapInuse()
	for _, f := range framers {
		if err := f.WriteMessage(big); err != nil {
			t.Fatal(err)
		}
		got, err := f.ReadMessage()
		if err != nil || !strings.Contains(string(got), `"code":-32600`) || !strings.Contains(string(got), "exceeds the size limit") {
			t.Fatalf("an oversized message got %s, %v", got, err)
		}
	}
	grown := heapInuse() - before
	t.Logf("heap in use grew %d KiB over %d connections after one message of %d KiB each", grown>>10, conns, len(big)>>10)
	// The connections' own buffers (the library's, ours for small
	// messages) stay; one buffer of the message's size each does not.
	if perConn := grown / conns; perConn > limit/4 {
		t.Errorf("each connection keeps %d KiB after an oversized message (limit %d KiB)", perConn>>10, limit>>10)
	}
	for _, f := range framers {
		checkCall(t, f)
	}
}
