package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
)

// blockingHandler serves "block" by waiting for its context to end and reporting the
// request's id on started; everything else goes to specHandler.
type blockingHandler struct {
	started chan runtime.ID
	ended   chan error
}

func newBlockingHandler() *blockingHandler {
	return &blockingHandler{started: make(chan runtime.ID, 8), ended: make(chan error, 8)}
}

func (h *blockingHandler) ServeRPC(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
	if req.Method != "block" {
		return specHandler.ServeRPC(ctx, req)
	}
	h.started <- runtime.RequestIDFromContext(ctx)
	<-ctx.Done()
	h.ended <- ctx.Err()
	return nil, ctx.Err()
}

func TestCallCancelSendsCancelMethod(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := newBlockingHandler()
	var mu sync.Mutex
	var onCancel []runtime.ID
	cancelled := make(chan struct{})
	opts := runtime.Options{
		CancelMethod: "$/cancelRequest",
		OnCancel: func(c *runtime.Conn, id runtime.ID) {
			mu.Lock()
			onCancel = append(onCancel, id)
			mu.Unlock()
			close(cancelled)
		},
	}
	client, _ := connPair(t, opts, runtime.Options{Handler: h, CancelMethod: "$/cancelRequest"})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "block", nil, nil) }()
	id := <-h.started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Call: %v, want context.Canceled", err)
	}
	// The server's handler context ends only through the $/cancelRequest notification.
	if err := <-h.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx: %v", err)
	}
	<-cancelled
	mu.Lock()
	defer mu.Unlock()
	if len(onCancel) != 1 || onCancel[0] != id {
		t.Errorf("OnCancel got %v, want [%v]", onCancel, id)
	}
	// The connection still works, and the late error response was dropped.
	var sum int
	if err := client.Call(context.Background(), "sum", []int{1, 2, 0}, &sum); err != nil || sum != 3 {
		t.Fatalf("call after cancel: %d, %v", sum, err)
	}
}

func TestCancelRequest(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := newBlockingHandler()
	client, server := connPair(t, runtime.Options{}, runtime.Options{Handler: h})
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "block", nil, nil) }()
	id := <-h.started
	if server.CancelRequest(runtime.StringID("nope")) {
		t.Error("CancelRequest of an unknown id reported true")
	}
	if !server.CancelRequest(id) {
		t.Fatal("CancelRequest of the in-flight id reported false")
	}
	// The handler returns ctx.Err(), a plain error: CodeServerError with its text.
	rpcErr := rpctest.WantError(t, <-errc, runtime.CodeServerError)
	if rpcErr.Message != "context canceled" {
		t.Errorf("message %q", rpcErr.Message)
	}
}

func TestHandlerContextCancelledOnClose(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := newBlockingHandler()
	client, server := connPair(t, runtime.Options{}, runtime.Options{Handler: h})
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "block", nil, nil) }()
	<-h.started
	server.Close()
	if err := <-h.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx: %v", err)
	}
	if err := <-errc; !errors.Is(err, runtime.ErrClosed) {
		t.Errorf("pending call: %v, want ErrClosed", err)
	}
}

func TestPanicBecomesInternalError(t *testing.T) {
	rpctest.CheckLeaks(t)
	var logs bytes.Buffer
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method == "boom" {
			panic("kaboom")
		}
		return specHandler.ServeRPC(ctx, req)
	})
	logger := slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
	client, server := connPair(t, runtime.Options{}, runtime.Options{Handler: h, Logger: logger})
	err := client.Call(context.Background(), "boom", nil, nil)
	if rpcErr := rpctest.WantError(t, err, runtime.CodeInternalError); rpcErr.Message != "Internal error" {
		t.Errorf("message %q", rpcErr.Message)
	}
	var sum int
	if err := client.Call(context.Background(), "sum", []int{1, 2, 0}, &sum); err != nil || sum != 3 {
		t.Fatalf("call after panic: %d, %v", sum, err)
	}
	server.Close()
	if !strings.Contains(logs.String(), "kaboom") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("log lacks the panic value or stack: %s", logs.String())
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func TestShutdownWaitsForHandler(t *testing.T) {
	rpctest.CheckLeaks(t)
	release := make(chan struct{})
	started := make(chan struct{})
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		close(started)
		<-release
		return runtime.EncodeResult("done")
	})
	client, server := connPair(t, runtime.Options{}, runtime.Options{Handler: h})
	var got string
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "work", nil, &got) }()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- server.Shutdown(context.Background()) }()
	select {
	case <-shut:
		t.Fatal("Shutdown returned while a handler was running")
	case err := <-errc:
		t.Fatalf("call ended before the handler: %v", err)
	default:
	}
	close(release)
	if err := <-errc; err != nil || got != "done" {
		t.Fatalf("in-flight call: %q, %v", got, err)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

func TestBidirectional(t *testing.T) {
	rpctest.CheckLeaks(t)
	// The server's handler calls back the client, whose own handler answers.
	server := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		var name string
		if err := runtime.ConnFromContext(ctx).Call(ctx, "client.name", nil, &name); err != nil {
			return nil, err
		}
		return runtime.EncodeResult("hello, " + name)
	})
	clientHandler := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method != "client.name" {
			return nil, runtime.ErrMethodNotFound(req.Method)
		}
		return runtime.EncodeResult("gopher")
	})
	client, _ := connPair(t, runtime.Options{Handler: clientHandler}, runtime.Options{Handler: server})
	var got string
	if err := client.Call(context.Background(), "greet", nil, &got); err != nil || got != "hello, gopher" {
		t.Fatalf("greet: %q, %v", got, err)
	}
}

func TestErrorsAsOnClient(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		switch req.Method {
		case "custom":
			return nil, runtime.NewError(42, "custom failure").WithData(map[string]int{"n": 7})
		case "wrapped":
			return nil, errors.Join(errors.New("context"), runtime.NewError(43, "inner"))
		case "plain":
			return nil, errors.New("disk full")
		}
		return specHandler.ServeRPC(ctx, req)
	})
	client, _ := connPair(t, runtime.Options{}, runtime.Options{Handler: h})
	ctx := context.Background()
	e := rpctest.WantError(t, client.Call(ctx, "custom", nil, nil), 42)
	if e.Message != "custom failure" || string(e.Data) != `{"n":7}` {
		t.Errorf("custom: %q %s", e.Message, e.Data)
	}
	if e.Error() != "jsonrpc: custom failure (code 42)" {
		t.Errorf("Error() = %q", e.Error())
	}
	rpctest.WantError(t, client.Call(ctx, "wrapped", nil, nil), 43)
	if e := rpctest.WantError(t, client.Call(ctx, "plain", nil, nil), runtime.CodeServerError); e.Message != "disk full" {
		t.Errorf("plain: %q", e.Message)
	}
	e = rpctest.WantError(t, client.Call(ctx, "missing", nil, nil), runtime.CodeMethodNotFound)
	if e.Message != "Method not found" || string(e.Data) != `"missing"` {
		t.Errorf("missing: %q %s", e.Message, e.Data)
	}
	e = rpctest.WantError(t, client.Call(ctx, "subtract", map[string]any{"minuend": 1, "x": 2}, nil), runtime.CodeInvalidParams)
	// Every problem of the params in one error, and in its data.
	if want := `invalid params: 2 problems: unknown field "x" (valid fields: minuend, subtrahend); missing required field "subtrahend"`; e.Message != want {
		t.Errorf("unknown field: %q, want %q", e.Message, want)
	}
	if want := `{"problems":[{"message":"unknown field \"x\" (valid fields: minuend, subtrahend)"},{"message":"missing required field \"subtrahend\""}]}`; string(e.Data) != want {
		t.Errorf("unknown field: data %s, want %s", e.Data, want)
	}
}

func TestConnBatchAndNotify(t *testing.T) {
	rpctest.CheckLeaks(t)
	got := make(chan string, 1)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method == "note" {
			got <- string(req.Params)
			return nil, nil
		}
		return specHandler.ServeRPC(ctx, req)
	})
	client, _ := connPair(t, runtime.Options{}, runtime.Options{Handler: h})
	ctx := context.Background()
	if err := client.Notify(ctx, "note", map[string]string{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	if p := <-got; p != `{"text":"hi"}` {
		t.Errorf("notification params %s", p)
	}
	var sum, diff int
	calls := []*runtime.BatchCall{
		{Method: "sum", Params: []int{1, 2, 3}, Result: &sum},
		{Method: "update", Params: []int{1}, Notification: true},
		{Method: "subtract", Params: []int{10, 4}, Result: &diff},
		{Method: "nope"},
	}
	if err := client.Batch(ctx, calls); err != nil {
		t.Fatal(err)
	}
	if sum != 6 || diff != 6 || calls[0].Err != nil || calls[2].Err != nil {
		t.Errorf("batch results: %d %d %v %v", sum, diff, calls[0].Err, calls[2].Err)
	}
	rpctest.WantError(t, calls[3].Err, runtime.CodeMethodNotFound)
}

func TestNoBatches(t *testing.T) {
	rpctest.CheckLeaks(t)
	a, b := runtime.Pipe()
	serveOn(t, b, runtime.Options{Handler: specHandler, NoBatches: true})
	reply := roundTrip(t, a, `[{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}]`, false)
	if !rpctest.SameJSON(t, reply, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"},"id":null}`) {
		t.Errorf("got %s", reply)
	}
	a.Close()
}
