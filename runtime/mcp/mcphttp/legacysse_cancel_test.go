package mcphttp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/cancelhook"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// TestLegacySSECancelStopsProgress: a notifications/cancelled that arrives
// while the handler is sending a progress notification is answered 202 only
// once that send is over, and nothing more of the cancelled request goes on
// the stream. The progress send is held (by an observer, on the sending
// goroutine, after the call was found live) until either the cancel POST got
// its 202, which is the defect, or the cancellation waits for the send.
func TestLegacySSECancelStopsProgress(t *testing.T) {
	rpctest.CheckLeaks(t)
	var (
		toolCtx  = make(chan context.Context, 1)
		inSend   = make(chan struct{})
		accepted = make(chan struct{})
		waiting  = make(chan struct{})
		tail     = make(chan struct{})
		sendDone = make(chan struct{})
		mu       sync.Mutex
		early    bool // the cancel POST got its 202 while the send was under way
		ours     cancelhook.Barrier
	)
	var once sync.Once
	wait := func(b cancelhook.Barrier) {
		mu.Lock()
		mine := b == ours
		mu.Unlock()
		if mine {
			once.Do(func() { close(waiting) })
		}
	}
	cancelhook.Waiting.Store(&wait)
	t.Cleanup(func() { cancelhook.Waiting.Store(nil) })

	observe := func(method string, params json.RawMessage) {
		if method != mcp.NotificationProgress || !strings.Contains(string(params), `"progress":1`) {
			return
		}
		close(inSend)
		defer close(sendDone)
		select {
		case <-accepted:
			mu.Lock()
			early = true
			mu.Unlock()
		case <-waiting:
		}
	}
	srv := mcpserver.New(mcp.Implementation{Name: "cancel-test", Version: "1"}, &mcpserver.Options{
		Middleware: []runtime.Middleware{func(next runtime.Handler) runtime.Handler {
			return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
				return next.ServeRPC(mcpserver.ObserveNotifications(ctx, observe), req)
			})
		}},
	})
	srv.AddTools(mcpserver.Tool{Name: "edge", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		mu.Lock()
		ours, _ = ctx.Value(cancelhook.Key{}).(cancelhook.Barrier)
		mu.Unlock()
		toolCtx <- ctx
		mcpserver.Progress(ctx, 1, 0, "")
		mcpserver.Progress(ctx, 2, 0, "") // after the cancellation: dropped
		close(tail)
		return nil, ctx.Err()
	}})
	h := NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })

	c := dialSSE(t, ts, "/", "")
	defer c.close()
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"edge","arguments":{},"_meta":{"progressToken":"tok"}}}`)
	ctx := recv(t, toolCtx, "the tool to start")
	recv(t, inSend, "the first progress notification to be sent")

	status := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, c.endpoint,
			strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e"}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := ts.Client().Do(req)
		if err != nil {
			status <- 0
			return
		}
		resp.Body.Close()
		status <- resp.StatusCode
		close(accepted)
	}()
	if got := recv(t, status, "the cancel POST's answer"); got != http.StatusAccepted {
		t.Fatalf("cancel POST: status %d, want 202", got)
	}
	recv(t, sendDone, "the progress send to end")
	if ctx.Err() == nil {
		t.Error("the call's context is live after the cancel POST got its 202")
	}
	mu.Lock()
	if early {
		t.Error("the cancel POST got its 202 while a progress notification of the cancelled call was being sent")
	}
	mu.Unlock()
	recv(t, tail, "the tool to return")

	// The stream holds the progress sent before the cancellation took
	// effect, then nothing of the call: the next message is the ping's.
	msgs := c.call(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	for _, m := range msgs[:len(msgs)-1] {
		if !strings.Contains(m, `"progress":1`) {
			t.Errorf("after the cancellation: %s", m)
		}
	}
	if last := msgs[len(msgs)-1]; !strings.Contains(last, `"after"`) {
		t.Errorf("the ping's answer: %s", last)
	}
}

// checkedWriter calls check when the status is written.
type checkedWriter struct {
	*httptest.ResponseRecorder
	check func(status int)
}

func (w *checkedWriter) WriteHeader(status int) {
	w.check(status)
	w.ResponseRecorder.WriteHeader(status)
}

// TestLegacySSECancelBefore202: a POSTed notifications/cancelled is in
// effect (the call's context is cancelled) when its 202 is written.
func TestLegacySSECancelBefore202(t *testing.T) {
	rpctest.CheckLeaks(t)
	toolCtx := make(chan context.Context, 1)
	srv := mcpserver.New(mcp.Implementation{Name: "cancel-test", Version: "1"}, nil)
	srv.AddTools(mcpserver.Tool{Name: "hold", Handler: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		toolCtx <- ctx
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	h := NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })

	c := dialSSE(t, ts, "/", "")
	defer c.close()
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	ctx := recv(t, toolCtx, "the tool to start")

	req := httptest.NewRequest(http.MethodPost, c.endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`))
	req.Header.Set("Content-Type", "application/json")
	w := &checkedWriter{ResponseRecorder: httptest.NewRecorder(), check: func(status int) {
		if status == http.StatusAccepted && ctx.Err() == nil {
			t.Error("the cancel POST got its 202 before the call was cancelled")
		}
	}}
	h.ServeHTTP(w, req)
	if w.Code != http.StatusAccepted {
		t.Fatalf("cancel POST: status %d, want 202", w.Code)
	}
	if msgs := c.call(`{"jsonrpc":"2.0","id":"after","method":"ping"}`); len(msgs) != 1 || !strings.Contains(msgs[0], `"after"`) {
		t.Errorf("after the cancellation: %q", msgs)
	}
}
