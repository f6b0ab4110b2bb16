package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// callbackServer serves "greet" by calling the peer's "client.name" back and waiting for
// the answer, as an MCP tool asks its client for sampling or elicitation.
var callbackServer = runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	var name string
	if err := runtime.ConnFromContext(ctx).Call(ctx, "client.name", nil, &name); err != nil {
		return nil, err
	}
	return runtime.EncodeResult("hello, " + name)
})

// readWithin reads the next message from f, failing the test instead of hanging when
// none comes before ctx ends.
func readWithin(ctx context.Context, t *testing.T, f runtime.Framer) message {
	t.Helper()
	type read struct {
		msg []byte
		err error
	}
	ch := make(chan read, 1)
	go func() {
		msg, err := f.ReadMessage()
		ch <- read{msg, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("read: %v", r.err)
		}
		var m message
		if err := json.Unmarshal(r.msg, &m); err != nil {
			t.Fatalf("read %s: %v", r.msg, err)
		}
		return m
	case <-ctx.Done():
		t.Fatal("no message came: the connection is deadlocked")
		return message{}
	}
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *runtime.Error  `json:"error"`
}

func write(t *testing.T, f runtime.Framer, format string, args ...any) {
	t.Helper()
	if err := f.WriteMessage(fmt.Appendf(nil, format, args...)); err != nil {
		t.Fatal(err)
	}
}

// answerCallbacks reads messages until it has answered n callbacks and collected the
// responses to want requests, and returns those responses by id.
func answerCallbacks(ctx context.Context, t *testing.T, f runtime.Framer, n, want int) map[string]message {
	t.Helper()
	got := make(map[string]message)
	for n > 0 || len(got) < want {
		m := readWithin(ctx, t, f)
		switch {
		case m.Method == "client.name":
			write(t, f, `{"jsonrpc":"2.0","id":%s,"result":"gopher"}`, m.ID)
			n--
		case m.Method != "":
			t.Fatalf("unexpected request %s", m.Method)
		default:
			got[string(m.ID)] = m
		}
	}
	return got
}

// TestCallbackWhileSlotsFull is issue 2: with every handler slot taken by a handler
// waiting for a call back to the peer, and more requests read, the responses to the
// callbacks must still be read. Before the queue the reader stopped reading while it
// held the third request, so nothing more was ever read.
func TestCallbackWhileSlotsFull(t *testing.T) {
	rpctest.CheckLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, server := runtime.Pipe()
	serveOn(t, server, runtime.Options{Handler: callbackServer, MaxInflight: 2})
	defer client.Close()
	for i := 1; i <= 4; i++ {
		write(t, client, `{"jsonrpc":"2.0","id":%d,"method":"greet"}`, i)
	}
	// The first two callbacks come before any response can; their answers come after
	// the third and fourth requests on the wire.
	got := answerCallbacks(ctx, t, client, 4, 4)
	for i := 1; i <= 4; i++ {
		m := got[fmt.Sprint(i)]
		if m.Error != nil || string(m.Result) != `"hello, gopher"` {
			t.Errorf("greet %d: %s %v", i, m.Result, m.Error)
		}
	}
}

// TestCallbackWhileQueueFull: when the queue is full too and every handler waits for
// the peer, a request that does not fit is refused with "server busy" rather than
// waited for, which would deadlock; a notification that does not fit is dropped. The
// queued request is served once a slot frees.
func TestCallbackWhileQueueFull(t *testing.T) {
	rpctest.CheckLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	notes := make(chan string, 8)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		switch {
		case req.IsNotification():
			notes <- req.Method
			return nil, nil
		case req.Method == "greet":
			return callbackServer(ctx, req)
		}
		return specHandler.ServeRPC(ctx, req)
	})
	client, server := runtime.Pipe()
	serveOn(t, server, runtime.Options{Handler: h, MaxInflight: 2, MaxQueued: 1})
	defer client.Close()
	for i := 1; i <= 3; i++ {
		write(t, client, `{"jsonrpc":"2.0","id":%d,"method":"greet"}`, i)
	}
	write(t, client, `{"jsonrpc":"2.0","method":"dropped"}`)
	write(t, client, `{"jsonrpc":"2.0","id":4,"method":"greet"}`)
	// Request 4 is refused while the callbacks of 1 and 2 are still unanswered.
	var callbacks []message
	refused := false
	for len(callbacks) < 2 || !refused {
		m := readWithin(ctx, t, client)
		switch {
		case m.Method == "client.name":
			callbacks = append(callbacks, m)
		case string(m.ID) == "4" && m.Error != nil && m.Error.Code == runtime.CodeServerError:
			refused = true
		default:
			t.Fatalf("got %+v, want a callback or a server busy error for request 4", m)
		}
	}
	// Once the callbacks are answered, 1 and 2 finish and 3 runs.
	for _, m := range callbacks {
		write(t, client, `{"jsonrpc":"2.0","id":%s,"result":"gopher"}`, m.ID)
	}
	got := answerCallbacks(ctx, t, client, 1, 3)
	for i := 1; i <= 3; i++ {
		if m := got[fmt.Sprint(i)]; m.Error != nil || string(m.Result) != `"hello, gopher"` {
			t.Errorf("greet %d: %s %v", i, m.Result, m.Error)
		}
	}
	// A notification is served again now that a slot is free: it is the first one
	// the handler sees, so the earlier one was dropped.
	write(t, client, `{"jsonrpc":"2.0","method":"served"}`)
	write(t, client, sentinel)
	if m := readWithin(ctx, t, client); string(m.ID) != `"sentinel"` {
		t.Fatalf("got %+v, want the sentinel's response", m)
	}
	select {
	case n := <-notes:
		if n != "served" {
			t.Errorf("notification %q reached the handler, want served", n)
		}
	case <-ctx.Done():
		t.Fatal("the notification was not served")
	}
}

// TestCancelQueuedRequest: a cancellation for a request still waiting for a slot makes
// its handler start with a context that is already cancelled.
func TestCancelQueuedRequest(t *testing.T) {
	rpctest.CheckLeaks(t)
	release := make(chan struct{})
	started := make(chan string, 4)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		started <- req.Method
		switch req.Method {
		case "hold":
			<-release
			return runtime.EncodeResult("held")
		case "queued":
			if err := ctx.Err(); err != nil {
				return nil, runtime.NewError(-32800, "cancelled before it started")
			}
			return runtime.EncodeResult("ran")
		}
		return specHandler.ServeRPC(ctx, req)
	})
	client, server := runtime.Pipe()
	serveOn(t, server, runtime.Options{Handler: h, MaxInflight: 1, CancelMethod: "$/cancelRequest"})
	defer client.Close()
	write(t, client, `{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	if m := <-started; m != "hold" {
		t.Fatalf("started %s", m)
	}
	write(t, client, `{"jsonrpc":"2.0","id":2,"method":"queued"}`)
	write(t, client, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`)
	// An unknown id is ignored.
	write(t, client, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}`)
	// The reader answers an invalid request itself: once the answer is read, the
	// cancellations before it have been handled.
	write(t, client, `{"jsonrpc":"2.0","id":"bad"}`)
	if m := readWithin(context.Background(), t, client); string(m.ID) != `"bad"` || m.Error == nil || m.Error.Code != runtime.CodeInvalidRequest {
		t.Fatalf("got %+v, want an Invalid Request error", m)
	}
	write(t, client, sentinel)
	close(release)
	want := []string{`1:"held"`, `2:-32800`, `"sentinel":42`}
	for _, w := range want {
		m, err := client.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var got message
		if err := json.Unmarshal(m, &got); err != nil {
			t.Fatal(err)
		}
		s := string(got.ID) + ":" + string(got.Result)
		if got.Error != nil {
			s = fmt.Sprintf("%s:%d", got.ID, got.Error.Code)
		}
		if s != w {
			t.Errorf("got %s, want %s", s, w)
		}
	}
}
