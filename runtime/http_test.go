package runtime_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

func newHTTPServer(t *testing.T, h runtime.Handler, opts runtime.HTTPOptions) (*httptest.Server, *runtime.HTTPClient) {
	t.Helper()
	srv := httptest.NewServer(runtime.NewHTTPHandler(h, opts))
	t.Cleanup(srv.Close)
	client := runtime.NewHTTPClient(srv.URL)
	client.Client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.Client.CloseIdleConnections)
	return srv, client
}

func TestHTTPClient(t *testing.T) {
	checkLeaks(t)
	noted := make(chan string, 1)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		if req.Method == "note" {
			noted <- string(req.Params)
		}
		if runtime.ConnFromContext(ctx) != nil {
			t.Error("ConnFromContext over HTTP is not nil")
		}
		return specHandler.ServeRPC(ctx, req)
	})
	_, client := newHTTPServer(t, h, runtime.HTTPOptions{})
	ctx := context.Background()
	var _ runtime.Caller = client

	var diff int
	if err := client.Call(ctx, "subtract", []int{42, 23}, &diff); err != nil || diff != 19 {
		t.Fatalf("Call: %d, %v", diff, err)
	}
	wantRPCError(t, client.Call(ctx, "nope", nil, nil), runtime.CodeMethodNotFound)
	if err := client.Notify(ctx, "note", []int{1}); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	if got := <-noted; got != "[1]" {
		t.Errorf("notification params %s", got)
	}
	var sum int
	calls := []*runtime.BatchCall{
		{Method: "sum", Params: []int{1, 2, 0}, Result: &sum},
		{Method: "update", Notification: true},
		{Method: "nope"},
	}
	if err := client.Batch(ctx, calls); err != nil {
		t.Fatal(err)
	}
	if sum != 3 || calls[0].Err != nil {
		t.Errorf("batch sum: %d, %v", sum, calls[0].Err)
	}
	wantRPCError(t, calls[2].Err, runtime.CodeMethodNotFound)
	if err := client.Batch(ctx, []*runtime.BatchCall{{Method: "update", Notification: true}}); err != nil {
		t.Errorf("batch of notifications: %v", err)
	}
}

func TestHTTPHandlerStatuses(t *testing.T) {
	checkLeaks(t)
	srv, client := newHTTPServer(t, specHandler, runtime.HTTPOptions{MaxMessageSize: 256})
	hc := client.Client

	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET: %s, Allow %q", resp.Status, resp.Header.Get("Allow"))
	}

	big := `{"jsonrpc":"2.0","method":"sum","params":[` + strings.Repeat("1,", 200) + `1],"id":1}`
	resp, err = hc.Post(srv.URL, "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"code":-32600`) {
		t.Errorf("oversized: %s %s", resp.Status, body)
	}
	// The client surfaces the JSON-RPC error in a 413 body as a *runtime.Error.
	wantRPCError(t, client.Call(context.Background(), "sum", json.RawMessage(big[strings.Index(big, "["):strings.LastIndex(big, "]")+1]), nil), runtime.CodeInvalidRequest)
	var sum int
	if err := client.Call(context.Background(), "sum", []int{1, 1, 0}, &sum); err != nil || sum != 2 {
		t.Fatalf("call after an oversized one: %d, %v", sum, err)
	}
}

func TestHTTPHandlerContextIsRequestContext(t *testing.T) {
	checkLeaks(t)
	started := make(chan struct{})
	ended := make(chan error, 1)
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	})
	srv, client := newHTTPServer(t, h, runtime.HTTPOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader([]byte(`{"jsonrpc":"2.0","method":"x","id":1}`)))
	_, err := client.Client.Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Do: %v", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx: %v", err)
	}
}
