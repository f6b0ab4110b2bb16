package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// counter is a stream service: "count" streams 0, 1, … n-1 (forever for n < 0),
// recording how many items it produced and when its loop stopped.
type counter struct {
	produced atomic.Int64
	stopped  chan struct{} // gets a value each time a count loop stops
	failAt   int           // yield an error instead of this item, when > 0
}

func newCounter() *counter { return &counter{stopped: make(chan struct{}, 64)} }

func (c *counter) count(ctx context.Context, n int) iter.Seq2[int, error] {
	return func(yield func(int, error) bool) {
		defer func() { c.stopped <- struct{}{} }()
		for i := 0; n < 0 || i < n; i++ {
			if c.failAt > 0 && i == c.failAt {
				yield(0, runtime.NewError(7, fmt.Sprintf("failed at %d", i)))
				return
			}
			c.produced.Add(1)
			if !yield(i, nil) || ctx.Err() != nil {
				return
			}
		}
	}
}

func (c *counter) handler() runtime.Handler {
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method != "count" {
			return specHandler.ServeRPC(ctx, req)
		}
		var n [1]int
		if err := json.Unmarshal(req.Params, &n); err != nil {
			return nil, runtime.InvalidParams("%v", err)
		}
		return runtime.ServeStream(ctx, c.count(ctx, n[0]))
	})
}

// streamPair connects a client Conn to a server Conn serving c over a Pipe.
func streamPair(t *testing.T, c *counter) *runtime.Conn {
	t.Helper()
	a, b := runtime.Pipe()
	srv := runtime.NewConn(b, runtime.Options{Handler: c.handler()})
	cli := runtime.NewConn(a, runtime.Options{})
	t.Cleanup(func() { cli.Close(); srv.Close() })
	return cli
}

func TestStreamItemsInOrder(t *testing.T) {
	cli := streamPair(t, newCounter())
	want := 0
	for v, err := range runtime.Stream[int](context.Background(), cli, "count", []int{1000}) {
		if err != nil {
			t.Fatalf("after %d items: %v", want, err)
		}
		if v != want {
			t.Fatalf("item %d is %d", want, v)
		}
		want++
	}
	if want != 1000 {
		t.Fatalf("got %d items, want 1000", want)
	}
	// The connection goes on carrying calls and streams.
	n := 0
	for _, err := range runtime.Stream[int](context.Background(), cli, "count", []int{3}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("second stream: %d items", n)
	}
}

func TestStreamErrorEndsIt(t *testing.T) {
	c := newCounter()
	c.failAt = 3
	cli := streamPair(t, c)
	var got []int
	var last error
	for v, err := range runtime.Stream[int](context.Background(), cli, "count", []int{10}) {
		if err != nil {
			last = err
			break
		}
		got = append(got, v)
	}
	var e *runtime.Error
	if len(got) != 3 || !errors.As(last, &e) || e.Code != 7 {
		t.Fatalf("got items %v and error %v; want 3 items, then error code 7", got, last)
	}
}

// TestStreamBreakStopsServer breaks out of the loop mid-way: the server's loop
// must stop, and the connection serves the next stream.
func TestStreamBreakStopsServer(t *testing.T) {
	c := newCounter()
	cli := streamPair(t, c)
	n := 0
	for _, err := range runtime.Stream[int](context.Background(), cli, "count", []int{-1}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 5 {
			break
		}
	}
	<-c.stopped // the server's loop over the items ended
	for v, err := range runtime.Stream[int](context.Background(), cli, "count", []int{2}) {
		if err != nil || v > 1 {
			t.Fatalf("next stream: %d, %v", v, err)
		}
	}
}

// TestStreamCancelStopsServer cancels the context of a stream mid-way.
func TestStreamCancelStopsServer(t *testing.T) {
	c := newCounter()
	cli := streamPair(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var last error
	for _, err := range runtime.Stream[int](ctx, cli, "count", []int{-1}) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 10 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("stream ended with %v, want context.Canceled", last)
	}
	<-c.stopped
}

// TestStreamBackpressure holds a stream without taking items: the producer
// must stop within the window, and go on as items are taken.
func TestStreamBackpressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCounter()
		cli := streamPair(t, c)
		s, err := cli.CallStream(context.Background(), "count", []int{-1})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		// The producer has made the window's items and the one waiting for a credit.
		if p := c.produced.Load(); p > runtime.DefaultStreamWindow+1 || p < runtime.DefaultStreamWindow {
			t.Fatalf("with nothing taken the producer made %d items; want the window, %d (+1)", p, runtime.DefaultStreamWindow)
		}
		for i := range 1000 {
			raw, err := s.Next()
			if err != nil || string(raw) != jsonInt(i) {
				t.Fatalf("item %d: %s, %v", i, raw, err)
			}
		}
		synctest.Wait()
		if p := c.produced.Load(); p > 1000+runtime.DefaultStreamWindow+1 {
			t.Fatalf("after 1000 taken the producer made %d items; want at most %d", p, 1000+runtime.DefaultStreamWindow+1)
		}
		s.Close()
		<-c.stopped
	})
}

func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestStreamWire checks the wire a peer that grants no credit sees (any
// JSON-RPC library): each item a notification naming the call, then a null
// result.
func TestStreamWire(t *testing.T) {
	a, b := runtime.Pipe()
	srv := runtime.NewConn(b, runtime.Options{Handler: newCounter().handler()})
	defer srv.Close()
	if err := a.WriteMessage([]byte(`{"jsonrpc":"2.0","id":"s1","method":"count","params":[2]}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"$/stream","params":{"id":"s1","item":0}}`,
		`{"jsonrpc":"2.0","method":"$/stream","params":{"id":"s1","item":1}}`,
		`{"jsonrpc":"2.0","id":"s1","result":null}`,
	}
	for _, w := range want {
		got, err := a.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if !rpctest.SameJSON(t, string(got), w) {
			t.Fatalf("got %s, want %s", got, w)
		}
	}
	// As a notification, a stream method is not run: nothing is sent.
	roundTrip(t, a, `{"jsonrpc":"2.0","method":"count","params":[2]}`, true)
}

// TestStreamCollected is a stream answered by a Processor, which has no way to
// send items: the result is their array.
func TestStreamCollected(t *testing.T) {
	p := runtime.NewProcessor(runtime.Options{Handler: newCounter().handler()})
	got := p.Process(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"count","params":[3]}`), nil)
	if !rpctest.SameJSON(t, string(got), `{"jsonrpc":"2.0","id":1,"result":[0,1,2]}`) {
		t.Fatalf("got %s", got)
	}
}

// TestStreamConnectionLost ends the server mid-stream: the client's stream ends
// with an error saying the connection was lost.
func TestStreamConnectionLost(t *testing.T) {
	c := newCounter()
	a, b := runtime.Pipe()
	srv := runtime.NewConn(b, runtime.Options{Handler: c.handler()})
	cli := runtime.NewConn(a, runtime.Options{})
	defer cli.Close()
	n := 0
	var last error
	for _, err := range runtime.Stream[int](context.Background(), cli, "count", []int{-1}) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 3 {
			go srv.Close()
		}
	}
	if !errors.Is(last, runtime.ErrConnectionLost) {
		t.Fatalf("stream ended with %v, want ErrConnectionLost", last)
	}
}
