package rpcnet_test

import (
	"net"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpcnet"
)

// TestLargeMessageFreesItsBuffer sends one large message on each of 40 TCP
// connections, which stay open: one just within the size limit (echoed
// back) and, on other connections, one over it (refused). Each connection
// serves on, and neither end keeps a buffer of the message's size for any
// of them: with newline framing it kept one, up to the size limit, for as
// long as the connection lived.
func TestLargeMessageFreesItsBuffer(t *testing.T) {
	const conns, limit = 40, 256 << 10
	for _, framing := range []runtime.Framing{runtime.NewlineDelimited, runtime.ContentLength} {
		for _, over := range []bool{false, true} {
			name := map[runtime.Framing]string{runtime.NewlineDelimited: "lines", runtime.ContentLength: "headers"}[framing]
			if over {
				name += "/over"
			} else {
				name += "/within"
			}
			t.Run(name, func(t *testing.T) {
				addr := server(t, "tcp", &rpcnet.Server{Options: runtime.Options{Handler: newService(),
					Framing: framing, MaxMessageSize: limit}})
				size := limit - 100
				if over {
					size = limit + limit/2
				}
				big := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["` + strings.Repeat("x", size) + `"]}`
				framers := make([]runtime.Framer, conns)
				for i := range framers {
					nc, err := net.Dial("tcp", addr)
					if err != nil {
						t.Fatal(err)
					}
					defer nc.Close()
					framers[i] = runtime.NewFramer(framing, nc, nc, 2*limit)
				}
				before := heapInuse()
				for _, f := range framers {
					if err := f.WriteMessage([]byte(big)); err != nil {
						t.Fatal(err)
					}
					got, err := f.ReadMessage()
					switch {
					case err != nil:
						t.Fatal(err)
					case over && !strings.Contains(string(got), "exceeds the size limit"):
						t.Fatalf("an oversized message got %.200s", got)
					case !over && !strings.Contains(string(got), `"result":["xxx`):
						t.Fatalf("a message within the limit got %.200s", got)
					}
				}
				grown := heapInuse() - before
				t.Logf("heap in use grew %d KiB over %d connections after one message of %d KiB each", grown>>10, conns, len(big)>>10)
				if perConn := grown / conns; perConn > limit/4 {
					t.Errorf("each connection keeps %d KiB after a message of %d KiB (limit %d KiB)", perConn>>10, len(big)>>10, limit>>10)
				}
				for _, f := range framers {
					if err := f.WriteMessage([]byte(`{"jsonrpc":"2.0","id":2,"method":"echo","params":[7]}`)); err != nil {
						t.Fatal(err)
					}
					if got, err := f.ReadMessage(); err != nil || !strings.Contains(string(got), `"result":[7]`) {
						t.Fatalf("the connection then got %s, %v", got, err)
					}
				}
			})
		}
	}
}
