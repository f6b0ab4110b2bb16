package websocket_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// fuzzLimit is the fuzzed server's MaxMessageSize: a frame over it is
// answered with an error, one over 16 times it closes the connection.
const fuzzLimit = 4 << 10

// FuzzMessage sends one frame of any content, text or binary, on a fresh
// connection to a server of the JSON-RPC specification's service, then a
// valid call: every message the server sends back must be a JSON-RPC 2.0
// response (or a batch of them), the valid call must be answered, and the
// whole must end within seconds. Only a frame over 16 times the size limit
// may end the connection instead, with status 1009.
func FuzzMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`,
		`{"jsonrpc":"2.0","method":"update","params":[1,2,3,4,5]}`,
		`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},{"jsonrpc":"2.0","method":"notify_hello","params":[7]},{"foo":"boo"},1]`,
		`[]`, `[1,2,3]`, `{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`, "\xff\xfe", "",
		`{"jsonrpc":"2.0","result":19,"id":1}`, `{"jsonrpc":"2.0","method":"$/stream.credit","params":{"id":1,"n":5}}`,
		`{"jsonrpc":"2.0","method":"sum","params":[1],"id":[]}`, strings.Repeat("[", 200) + strings.Repeat("]", 200),
		`"` + strings.Repeat("x", fuzzLimit) + `"`,
	} {
		f.Add(false, []byte(s))
	}
	f.Add(true, []byte(`{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1}`))
	h := wsrpc.NewHandler(specHandler, &wsrpc.Options{PingInterval: -1, Options: runtime.Options{MaxMessageSize: fuzzLimit}})
	srv := httptest.NewServer(h)
	f.Cleanup(func() { h.Close(); srv.Close() })
	url := "ws" + strings.TrimPrefix(srv.URL, "http")
	const sentinel = `{"jsonrpc":"2.0","method":"sum","params":[40,1,1],"id":"fuzz-sentinel"}`

	f.Fuzz(func(t *testing.T, binary bool, payload []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ws, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.CloseNow()
		ws.SetReadLimit(-1)
		typ := websocket.MessageText
		if binary {
			typ = websocket.MessageBinary
		}
		if err := ws.Write(ctx, typ, payload); err != nil {
			t.Fatalf("write the frame: %v", err)
		}
		if err := ws.Write(ctx, websocket.MessageText, []byte(sentinel)); err != nil {
			if len(payload) > 16*fuzzLimit {
				return // the connection was closed for the huge frame
			}
			t.Fatalf("write the call after it: %v", err)
		}
		for {
			_, msg, err := ws.Read(ctx)
			if err != nil {
				if len(payload) > 16*fuzzLimit && websocket.CloseStatus(err) == websocket.StatusMessageTooBig {
					return
				}
				t.Fatalf("before the call's answer: %v", err)
			}
			if err := rpctest.CheckReply(msg); err != nil {
				t.Fatal(err)
			}
			if rpctest.SameJSON(t, string(msg), `{"jsonrpc":"2.0","id":"fuzz-sentinel","result":42}`) {
				return
			}
		}
	})
}
