package jsonrpcws

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	gorilla "github.com/gorilla/websocket"
	"github.com/sourcegraph/jsonrpc2"
	sgws "github.com/sourcegraph/jsonrpc2/websocket"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/runtime"
)

// rpcgenServer serves the generated spec dispatcher, plus a "count" stream,
// over rpcgen's WebSocket handler.
func rpcgenServer(t *testing.T) string {
	spec := jsonrpcspec.NewSpecHandler(&jsonrpcspec.Impl{})
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method != "count" {
			return spec.ServeRPC(ctx, req)
		}
		var n [1]int
		if err := json.Unmarshal(req.Params, &n); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		var seq iter.Seq2[map[string]int, error] = func(yield func(map[string]int, error) bool) {
			for i := range n[0] {
				if !yield(map[string]int{"n": i}, nil) {
					return
				}
			}
		}
		return runtime.ServeStream(ctx, seq)
	})
	ws := wsrpc.NewHandler(h, nil)
	srv := httptest.NewServer(ws)
	t.Cleanup(func() { ws.Close(); srv.Close() })
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// items collects the $/stream notifications a sourcegraph client receives.
type items struct {
	mu  sync.Mutex
	got []string
}

func (it *items) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif && req.Method == runtime.StreamItemMethod && req.Params != nil {
		it.mu.Lock()
		it.got = append(it.got, string(*req.Params))
		it.mu.Unlock()
	}
}

// TestSourcegraphClientCallsRpcgen: sourcegraph/jsonrpc2's client, over its
// gorilla/websocket adapter, calls the generated dispatcher behind rpcgen's
// WebSocket handler: by position and by name, an error, and a stream whose
// items it reads as notifications before the call's null result.
func TestSourcegraphClientCallsRpcgen(t *testing.T) {
	url := rpcgenServer(t)
	gc, _, err := gorilla.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	it := &items{}
	conn := jsonrpc2.NewConn(context.Background(), sgws.NewObjectStream(gc), it)
	defer conn.Close()
	ctx := context.Background()

	var diff int
	if err := conn.Call(ctx, "subtract", []int{42, 23}, &diff); err != nil || diff != 19 {
		t.Fatalf("subtract by position: %d, %v", diff, err)
	}
	if err := conn.Call(ctx, "subtract", map[string]int{"minuend": 42, "subtrahend": 23}, &diff); err != nil || diff != 19 {
		t.Fatalf("subtract by name: %d, %v", diff, err)
	}
	var e *jsonrpc2.Error
	if err := conn.Call(ctx, "nope", nil, nil); !errors.As(err, &e) || e.Code != jsonrpc2.CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	var result json.RawMessage
	if err := conn.Call(ctx, "count", []int{3}, &result); err != nil || string(result) != "null" {
		t.Fatalf("count: %s, %v", result, err)
	}
	it.mu.Lock()
	defer it.mu.Unlock()
	if len(it.got) != 3 {
		t.Fatalf("got %d stream items: %q", len(it.got), it.got)
	}
	for i, p := range it.got {
		var item struct {
			ID   json.RawMessage
			Item struct{ N int }
		}
		if err := json.Unmarshal([]byte(p), &item); err != nil || item.Item.N != i || len(item.ID) == 0 {
			t.Fatalf("item %d: %s", i, p)
		}
	}
}

// specServer is the spec service written on sourcegraph/jsonrpc2, served
// over gorilla/websocket.
func specServer(t *testing.T) string {
	up := gorilla.Upgrader{}
	h := jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		var p struct{ Minuend, Subtrahend int }
		switch req.Method {
		case "subtract":
			if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
				return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "want {minuend, subtrahend}"}
			}
			return p.Minuend - p.Subtrahend, nil
		case "get_data":
			return []any{"hello", 5}, nil
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "no method " + req.Method}
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		<-jsonrpc2.NewConn(r.Context(), sgws.NewObjectStream(c), h).DisconnectNotify()
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// TestRpcgenClientCallsSourcegraph: the typed client rpcgen generated for the
// spec service calls the server built on sourcegraph/jsonrpc2, through
// ext/websocket's Dial.
func TestRpcgenClientCallsSourcegraph(t *testing.T) {
	c, err := wsrpc.Dial(context.Background(), specServer(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	client := jsonrpcspec.NewSpecClient(c)
	ctx := context.Background()
	if d, err := client.Subtract(ctx, 42, 23); err != nil || d != 19 {
		t.Fatalf("Subtract: %d, %v", d, err)
	}
	data, err := client.GetData(ctx)
	if err != nil || len(data) != 2 || data[0] != "hello" {
		t.Fatalf("GetData: %v, %v", data, err)
	}
	var rerr *runtime.Error
	if _, err := client.Sum(ctx, 1, 2, 3); !errors.As(err, &rerr) || rerr.Code != runtime.CodeMethodNotFound {
		t.Fatalf("Sum on a server without it: %v", err)
	}
}
