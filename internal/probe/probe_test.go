package probe

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// TestHoldCancelled cancels a Hold call from a Go client over HTTP and
// checks that the server saw its context cancelled, as the TypeScript tests
// of interop/tsclient do from Node.
func TestHoldCancelled(t *testing.T) {
	impl := &Impl{}
	srv := httptest.NewServer(WithHeaders(rpchttp.NewHandler(NewProbeHandler(impl), rpchttp.Options{})))
	defer srv.Close()
	client := NewProbeClient(rpchttp.NewClient(srv.URL))
	ctx := context.Background()

	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- client.Hold(callCtx, "go") }()
	if err := client.Held(ctx, "go"); err != nil {
		t.Fatalf("Held: %v", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Hold returned %v, want context.Canceled", err)
	}
	why, err := client.Released(ctx, "go")
	if err != nil || why != "context canceled" {
		t.Fatalf("Released = %q, %v; want \"context canceled\"", why, err)
	}

	if err := client.Hold(ctx, "go"); err == nil {
		t.Error("a second Hold with the same tag succeeded")
	} else if rpcErr := (*runtime.Error)(nil); !errors.As(err, &rpcErr) || rpcErr.Code != runtime.CodeServerError {
		t.Errorf("second Hold: %v, want a server error", err)
	}
}

func TestEchoAddHeader(t *testing.T) {
	srv := httptest.NewServer(WithHeaders(rpchttp.NewHandler(NewProbeHandler(&Impl{}), rpchttp.Options{})))
	defer srv.Close()
	client := NewProbeClient(rpchttp.NewClient(srv.URL))
	ctx := context.Background()
	if got, err := client.Echo(ctx, "hi"); err != nil || got != "hi" {
		t.Errorf("Echo = %q, %v", got, err)
	}
	if got, err := client.Add(ctx, 2, 3); err != nil || got != 5 {
		t.Errorf("Add = %d, %v", got, err)
	}
	if got, err := client.Header(ctx, "Content-Type"); err != nil || got != "application/json" {
		t.Errorf("Header(Content-Type) = %q, %v", got, err)
	}
	if got, err := (&Impl{}).Header(ctx, "X"); err != nil || got != "" {
		t.Errorf("Header without HTTP = %q, %v", got, err)
	}
}
