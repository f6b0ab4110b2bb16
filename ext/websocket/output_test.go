package websocket_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/coder/websocket"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

var bigAnswers sync.Map // of int to json.RawMessage

// bigHandler answers "big" [n] with a JSON string of n bytes (made once per
// size) and everything else as the spec service does.
var bigHandler = runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	if req.Method != "big" {
		return specHandler.ServeRPC(ctx, req)
	}
	var n [1]int
	if err := json.Unmarshal(req.Params, &n); err != nil {
		return nil, runtime.InvalidParams("%v", err)
	}
	if a, ok := bigAnswers.Load(n[0]); ok {
		return a.(json.RawMessage), nil
	}
	a, _ := bigAnswers.LoadOrStore(n[0], json.RawMessage(`"`+strings.Repeat("x", max(n[0]-2, 0))+`"`))
	return a.(json.RawMessage), nil
})

// pipeServe serves opts on an in-memory listener in a synctest bubble and
// returns a function that opens a WebSocket connection to it.
func pipeServe(t *testing.T, opts *wsrpc.Options) (dial func() *websocket.Conn, url string, client *http.Client) {
	t.Helper()
	h := wsrpc.NewHandler(bigHandler, opts)
	ts := rpctest.NewPipeServer(t, h, nil)
	t.Cleanup(func() { h.Close() })
	url = "ws" + strings.TrimPrefix(ts.URL, "http")
	return func() *websocket.Conn {
		ws, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPClient: ts.Client()})
		if err != nil {
			t.Fatal(err)
		}
		ws.SetReadLimit(-1)
		return ws
	}, url, ts.Client()
}

// TestNeverReadingClientsBounded: 50 WebSocket clients each ask for 64
// answers of 32 KiB and never read (in-memory connections in a synctest
// bubble, measured once every goroutine waits). What the server holds for
// them stays within twice its output budget plus one answer per connection
// (and the small errors that replace the answers refused), as the runtime counts
// it and as heap in use after GC (before the bound: all 3,200 answers, 100
// MiB); another client is answered meanwhile; a client that reads at last
// finds each call answered, by its result or by an error saying why not.
func TestNeverReadingClientsBounded(t *testing.T) {
	rpctest.Synctest(t, func(t *testing.T) {
		const hogs, calls, size = 50, 64, 32 << 10
		const budgetLimit, perConn = 4 << 20, 512 << 10
		budget := runtime.NewOutputBudget(budgetLimit)
		dial, url, client := pipeServe(t, &wsrpc.Options{PingInterval: -1,
			Options: runtime.Options{MaxUnsent: perConn, OutputBudget: budget, TrustResults: true}})
		before := heapInuse()
		conns := make([]*websocket.Conn, hogs)
		for i := range conns {
			ws := dial()
			defer ws.CloseNow()
			conns[i] = ws
			go func() {
				for i := range calls {
					req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"big","params":[%d]}`, i, size)
					if ws.Write(context.Background(), websocket.MessageText, []byte(req)) != nil {
						return
					}
				}
			}()
		}
		synctest.Wait()
		used, grown := budget.Used(), heapInuse()-before
		t.Logf("%d clients that never read %d answers of %d KiB: %d KiB held as counted, heap in use grew %d KiB",
			hogs, calls, size>>10, used>>10, grown>>10)
		// Twice the budget (connections that filled it first keep what they
		// hold), one answer per connection, and the errors that replace the
		// answers refused (which always go, and are small).
		if limit := int64(2*budgetLimit + hogs*(size+64) + hogs*calls*512); used > limit {
			t.Errorf("the server holds %d bytes for clients that do not read, over %d", used, limit)
		}
		if limit := int64(2*budgetLimit + hogs*size + 24<<20); grown > limit {
			t.Errorf("heap in use grew %d bytes, over %d", grown, limit)
		}

		c, err := wsrpc.Dial(context.Background(), url, &wsrpc.DialOptions{HTTPClient: client, PingInterval: -1,
			Options: runtime.Options{MaxMessageSize: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var got string
		if err := c.Call(context.Background(), "big", []int{size}, &got); err != nil || len(got) != size-2 {
			t.Fatalf("another client meanwhile: %d bytes, %v", len(got), err)
		}

		results, refused := 0, 0
		for range calls {
			_, msg, err := conns[0].Read(context.Background())
			if err != nil {
				t.Fatalf("after %d results and %d errors: %v", results, refused, err)
			}
			var resp struct {
				Result *string
				Error  *runtime.Error
			}
			if err := json.Unmarshal(msg, &resp); err != nil {
				t.Fatal(err)
			}
			switch {
			case resp.Result != nil && len(*resp.Result) == size-2:
				results++
			case resp.Error != nil && resp.Error.Code == runtime.CodeServerError && strings.Contains(resp.Error.Message, "answer not sent"):
				refused++
			default:
				t.Fatalf("an answer: %.200s", msg)
			}
		}
		t.Logf("the client that read at last: %d results, %d errors", results, refused)
		if refused == 0 || results == 0 {
			t.Fatalf("%d results and %d errors; want both", results, refused)
		}
	})
}
