package rpchttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// Client middleware adds a header through the context; the server's
// middleware (Options.Middleware) sees the request and its transport.
func TestMiddlewareHeadersAndTransport(t *testing.T) {
	gotHeader := make(chan string, 1)
	var seen atomic.Value
	h := runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		return json.RawMessage(`"ok"`), nil
	})
	mw := func(next runtime.Handler) runtime.Handler {
		return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			seen.Store(req.Method + " " + runtime.TransportFromContext(ctx))
			return next.ServeRPC(ctx, req)
		})
	}
	inner := rpchttp.NewHandler(h, rpchttp.Options{Middleware: []runtime.Middleware{mw}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHeader <- r.Header.Get("X-Request-Tag")
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	client := rpchttp.NewClient(srv.URL)
	client.Client = &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.Client.CloseIdleConnections)
	tag := func(next runtime.Invoker) runtime.Invoker {
		return func(ctx context.Context, call *runtime.ClientCall) error {
			if call.Transport != runtime.TransportTCP {
				t.Errorf("client transport %q", call.Transport)
			}
			return next(runtime.WithCallHeaders(ctx, http.Header{"X-Request-Tag": {"t-" + call.Method}}), call)
		}
	}
	var out string
	if err := runtime.WrapCaller(client, tag).Call(context.Background(), "hello", nil, &out); err != nil || out != "ok" {
		t.Fatalf("call: %q, %v", out, err)
	}
	if h := <-gotHeader; h != "t-hello" {
		t.Fatalf("the server got X-Request-Tag %q", h)
	}
	if s := seen.Load(); s != "hello tcp" {
		t.Fatalf("server middleware saw %v", s)
	}
}

// Over HTTP, Retry retries a call whose connection could not be made (any
// method) and a call a proxy answered with 503 (idempotent methods only).
func TestRetryOverHTTP(t *testing.T) {
	fast := runtime.RetryPolicy{Attempts: 3, MinDelay: time.Millisecond, MaxDelay: time.Millisecond}
	t.Run("refused connection", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		var attempts atomic.Int32
		count := func(next runtime.Invoker) runtime.Invoker {
			return func(ctx context.Context, call *runtime.ClientCall) error {
				attempts.Add(1)
				return next(ctx, call)
			}
		}
		client := rpchttp.NewClient("http://" + addr + "/rpc")
		err = runtime.WrapCaller(client, runtime.Retry(fast), count).Call(context.Background(), "x", nil, nil)
		if !errors.Is(err, runtime.ErrNotSent) || attempts.Load() != 3 {
			t.Fatalf("err %v after %d attempts, want ErrNotSent after 3", err, attempts.Load())
		}
	})
	t.Run("503", func(t *testing.T) {
		var hits atomic.Int32
		inner := rpchttp.NewHandler(runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
			return json.RawMessage(`7`), nil
		}), rpchttp.Options{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if hits.Add(1) <= 2 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			inner.ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		client := rpchttp.NewClient(srv.URL)
		w := runtime.WrapCaller(client, runtime.Retry(fast))
		if _, err := runtime.Call[int](context.Background(), w, "plain", nil); !errors.Is(err, runtime.ErrConnectionLost) {
			t.Fatalf("a plain call after 503: %v, want ErrConnectionLost and no retry", err)
		}
		n, err := runtime.CallIdempotent[int](context.Background(), w, "get", nil)
		if err != nil || n != 7 || hits.Load() != 3 {
			t.Fatalf("idempotent call: %d, %v after %d requests", n, err, hits.Load())
		}
	})
}
