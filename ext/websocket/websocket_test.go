package websocket_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	wsrpc "github.com/rpcgen/rpcgen/ext/websocket"
	"github.com/rpcgen/rpcgen/internal/jsonrpcspec"
	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

var specHandler = jsonrpcspec.NewSpecHandler(&jsonrpcspec.Impl{})

// handler serves the spec service, and streams "count" [n] (forever for
// n < 0), signalling on stopped when a stream's loop ends.
func handler(stopped chan<- struct{}) runtime.Handler {
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method != "count" {
			return specHandler.ServeRPC(ctx, req)
		}
		var n [1]int
		if err := json.Unmarshal(req.Params, &n); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		var seq iter.Seq2[int, error] = func(yield func(int, error) bool) {
			defer func() { stopped <- struct{}{} }()
			for i := 0; n[0] < 0 || i < n[0]; i++ {
				if !yield(i, nil) || ctx.Err() != nil {
					return
				}
			}
		}
		return runtime.ServeStream(ctx, seq)
	})
}

// serve starts a server of opts and returns its ws:// URL and the handler.
func serve(t *testing.T, opts *wsrpc.Options) (string, *wsrpc.Handler, chan struct{}) {
	t.Helper()
	stopped := make(chan struct{}, 64)
	h := wsrpc.NewHandler(handler(stopped), opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	return "ws" + strings.TrimPrefix(srv.URL, "http"), h, stopped
}

// raw dials url and returns the client end as a framer.
func raw(t *testing.T, url string) (runtime.Framer, *websocket.Conn) {
	t.Helper()
	ws, _, err := websocket.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	return wsrpc.NewFramer(ws, 64<<20), ws
}

// TestSpecExamplesWebSocket runs the JSON-RPC 2.0 specification's examples,
// one text frame each.
func TestSpecExamplesWebSocket(t *testing.T) {
	url, _, _ := serve(t, nil)
	jsonrpcspec.JudgeExamples(t, func(t *testing.T) runtime.Framer {
		f, _ := raw(t, url)
		return f
	})
}

// TestBadInputWebSocket sends every bad message on one connection (invalid
// JSON and UTF-8, wrong types, deep nesting, a frame over the size limit),
// then a binary frame: each gets its error and the connection serves on.
func TestBadInputWebSocket(t *testing.T) {
	rpctest.CheckLeaks(t)
	url, _, _ := serve(t, nil)
	f, ws := raw(t, url)
	defer f.Close()
	jsonrpcspec.JudgeBadInput(t, f)
	if err := ws.Write(context.Background(), websocket.MessageBinary, []byte(`{"jsonrpc":"2.0","method":"sum","params":[1,2,3],"id":1}`)); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadMessage()
	if err != nil || !strings.Contains(string(got), `"code":-32700`) || !strings.Contains(string(got), "binary frame") {
		t.Fatalf("a binary frame got %s, %v", got, err)
	}
	checkCall(t, f)
}

func checkCall(t *testing.T, f runtime.Framer) {
	t.Helper()
	if err := f.WriteMessage([]byte(`{"jsonrpc":"2.0","method":"sum","params":[40,1,1],"id":"after"}`)); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadMessage()
	if err != nil || !rpctest.SameJSON(t, string(got), `{"jsonrpc":"2.0","id":"after","result":42}`) {
		t.Fatalf("the call after: %s, %v", got, err)
	}
}

// TestHugeFrameClosesOnlyItsConnection sends a frame beyond 16 times the
// limit: that connection is closed with 1009, the server serves others.
func TestHugeFrameClosesOnlyItsConnection(t *testing.T) {
	url, _, _ := serve(t, &wsrpc.Options{Options: runtime.Options{MaxMessageSize: 1 << 10}})
	f, ws := raw(t, url)
	defer f.Close()
	ws.Write(context.Background(), websocket.MessageText, []byte(`["`+strings.Repeat("x", 17<<10)+`"]`))
	_, err := f.ReadMessage()
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("after a huge frame: %v, want close status 1009", err)
	}
	other, _ := raw(t, url)
	defer other.Close()
	checkCall(t, other)
}

// TestHalfOpen connects a client that never reads, so never answers a
// ping: the server closes it with a clear error and serves others.
func TestHalfOpen(t *testing.T) {
	conns := make(chan *runtime.Conn, 2)
	url, _, _ := serve(t, &wsrpc.Options{PingInterval: 20 * time.Millisecond, PingTimeout: 50 * time.Millisecond,
		OnConnect: func(c *runtime.Conn, _ *http.Request) { conns <- c }})
	_, ws := raw(t, url) // never read from
	defer ws.CloseNow()
	c := <-conns
	<-c.Done()
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "no pong") {
		t.Fatalf("the silent connection ended with %v", err)
	}
	other, _ := raw(t, url)
	defer other.Close()
	checkCall(t, other)
}

// TestPeerNeverReadsStream asks for an endless stream without credits and
// never reads: the server's writes time out and it disconnects the client.
func TestPeerNeverReadsStream(t *testing.T) {
	conns := make(chan *runtime.Conn, 2)
	url, _, stopped := serve(t, &wsrpc.Options{WriteTimeout: 100 * time.Millisecond, PingInterval: -1,
		OnConnect: func(c *runtime.Conn, _ *http.Request) { conns <- c }})
	_, ws := raw(t, url)
	defer ws.CloseNow()
	ws.Write(context.Background(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"count","params":[-1]}`))
	c := <-conns
	<-c.Done()
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "not reading") {
		t.Fatalf("the connection ended with %v", err)
	}
	<-stopped
}

// TestStreamCancelledMidway reads a typed stream through Dial and breaks out:
// the server's loop stops; a cancelled context does the same.
func TestStreamCancelledMidway(t *testing.T) {
	rpctest.CheckLeaks(t)
	url, _, stopped := serve(t, nil)
	c, err := wsrpc.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := 0
	for v, err := range runtime.Stream[int](context.Background(), c, "count", []int{-1}) {
		if err != nil || v != n {
			t.Fatalf("item %d: %d, %v", n, v, err)
		}
		if n++; n == 500 {
			break
		}
	}
	<-stopped
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n = 0
	var last error
	for _, err := range runtime.Stream[int](ctx, c, "count", []int{-1}) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 10 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancelled stream ended with %v", last)
	}
	<-stopped
	var sum int
	if err := c.Call(context.Background(), "sum", []int{1, 2, 3}, &sum); err != nil || sum != 6 {
		t.Fatalf("a call after the streams: %d, %v", sum, err)
	}
}

// TestOriginRefused upgrades from a foreign page: 403 with a JSON-RPC error,
// as the HTTP handlers answer; a listed origin is served.
func TestOriginRefused(t *testing.T) {
	url, _, _ := serve(t, &wsrpc.Options{AllowedOrigins: []string{"https://app.example"}})
	_, resp, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign origin: %v, %v", resp, err)
	}
	ws, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://app.example"}}})
	if err != nil {
		t.Fatalf("a listed origin: %v", err)
	}
	ws.CloseNow()
}

// TestRedial restarts nothing but drops the connection under the client:
// the next call dials again.
func TestRedial(t *testing.T) {
	conns := make(chan *runtime.Conn, 4)
	url, _, _ := serve(t, &wsrpc.Options{OnConnect: func(c *runtime.Conn, _ *http.Request) { conns <- c }})
	c, err := wsrpc.Dial(context.Background(), url, &wsrpc.DialOptions{Redial: runtime.RedialOptions{Retry: runtime.RetryPolicy{MinDelay: time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	(<-conns).Close()
	var sum int
	for i := 0; ; i++ {
		err := c.Call(context.Background(), "sum", []int{1, 2, 3}, &sum)
		if err == nil {
			break
		}
		if !errors.Is(err, runtime.ErrNotSent) && !errors.Is(err, runtime.ErrConnectionLost) || i == 3 {
			t.Fatalf("after the drop: %v", err)
		}
	}
	if sum != 6 {
		t.Fatalf("sum %d", sum)
	}
}
