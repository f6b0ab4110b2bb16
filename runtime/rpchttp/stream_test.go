package rpchttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// countHandler streams "count" [n] (forever for n < 0) and signals on stopped
// when a loop ends; other methods go to the spec service.
func countHandler(stopped chan<- struct{}) runtime.Handler {
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
				if i == 5 && n[0] == 6 {
					yield(0, runtime.NewError(9, "five is enough"))
					return
				}
				if !yield(i, nil) {
					return
				}
			}
		}
		return runtime.ServeStream(ctx, seq)
	})
}

func streamServer(t *testing.T) (*httptest.Server, chan struct{}) {
	stopped := make(chan struct{}, 16)
	srv := httptest.NewServer(rpchttp.NewHandler(countHandler(stopped), rpchttp.Options{}))
	t.Cleanup(srv.Close)
	return srv, stopped
}

func TestStreamOverSSE(t *testing.T) {
	srv, _ := streamServer(t)
	c := rpchttp.NewClient(srv.URL)
	n := 0
	for v, err := range runtime.Stream[int](context.Background(), c, "count", []int{300}) {
		if err != nil || v != n {
			t.Fatalf("item %d: %d, %v", n, v, err)
		}
		n++
	}
	if n != 300 {
		t.Fatalf("%d items, want 300", n)
	}
	var last error
	n = 0
	for _, err := range runtime.Stream[int](context.Background(), c, "count", []int{6}) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if e := rpctest.WantError(t, last, 9); e == nil || n != 5 {
		t.Fatalf("%d items, then %v; want 5 and error 9", n, last)
	}
}

// TestStreamSSEWire reads the event stream as any SSE client would.
func TestStreamSSEWire(t *testing.T) {
	srv, _ := streamServer(t)
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"a","method":"count","params":[2]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `data: {"jsonrpc":"2.0","method":"$/stream","params":{"id":"a","item":0}}

data: {"jsonrpc":"2.0","method":"$/stream","params":{"id":"a","item":1}}

data: {"jsonrpc":"2.0","id":"a","result":null}

`
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || string(body) != want {
		t.Fatalf("Content-Type %q, body:\n%s\nwant:\n%s", ct, body, want)
	}
}

// TestStreamAsJSON posts without accepting event streams: the items come as
// one array result, and other methods answer as usual.
func TestStreamAsJSON(t *testing.T) {
	srv, _ := streamServer(t)
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"count","params":[3]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !rpctest.SameJSON(t, string(body), `{"jsonrpc":"2.0","id":1,"result":[0,1,2]}`) {
		t.Fatalf("got %s", body)
	}
	var diff int
	if err := rpchttp.NewClient(srv.URL).Call(context.Background(), "subtract", []int{5, 2}, &diff); err != nil || diff != 3 {
		t.Fatalf("subtract: %d, %v", diff, err)
	}
}

// TestStreamBreakOverHTTP breaks out of an endless stream: the response is
// closed and the server's loop stops.
func TestStreamBreakOverHTTP(t *testing.T) {
	srv, stopped := streamServer(t)
	c := rpchttp.NewClient(srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for _, err := range runtime.Stream[int](ctx, c, "count", []int{-1}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 50 {
			break
		}
	}
	<-stopped
	// A cancelled context ends the next stream with its error.
	cancel()
	for _, err := range runtime.Stream[int](ctx, c, "count", []int{-1}) {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("with a cancelled context: %v", err)
		}
	}
}
