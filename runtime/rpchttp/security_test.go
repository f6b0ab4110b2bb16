package rpchttp_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// post POSTs body to url as JSON with the given headers (see request) and
// returns the status, Content-Type and body.
func post(t *testing.T, url, body string, kv ...string) (int, string, string) {
	t.Helper()
	resp, b := request(t, http.MethodPost, url, body, append([]string{"Content-Type", "application/json"}, kv...)...)
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// TestHandlerSafeDefaults: the plain JSON-RPC handler refuses what a web page
// can make a browser send. A page of another origin POSTs with Content-Type
// text/plain (no preflight) or comes with its Origin (403); a page whose DNS
// name was rebound to 127.0.0.1 sends its own name as Host (403 on a
// loopback listener); a body that is not declared JSON gets 415. Each
// refusal is a JSON-RPC error, the handler never runs, and the options
// admit what an operator allows.
func TestHandlerSafeDefaults(t *testing.T) {
	rpctest.CheckLeaks(t)
	var ran atomic.Int32
	h := rpchttp.NewHandler(countingHandler(&ran), rpchttp.Options{})
	srv := httptest.NewServer(h) // 127.0.0.1: a loopback listener
	t.Cleanup(srv.Close)
	call := `{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2,0]}`
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, tc := range []struct {
		name   string
		kv     []string
		status int
	}{
		{"own origin", []string{"Origin", srv.URL}, 200},
		{"loopback origin", []string{"Origin", "http://localhost:" + port}, 200},
		{"no origin (not a browser)", nil, 200},
		{"charset", []string{"Content-Type", "application/json; charset=utf-8"}, 200},
		{"application/json-rpc", []string{"Content-Type", "application/json-rpc"}, 200},
		{"localhost host", []string{"Host", "localhost:" + port}, 200},
		{"foreign origin", []string{"Origin", "http://evil.example"}, 403},
		{"foreign origin, text/plain", []string{"Origin", "http://evil.example", "Content-Type", "text/plain"}, 403},
		{"null origin", []string{"Origin", "null"}, 403},
		{"cross-site fetch without origin", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"rebound host", []string{"Host", "evil.example:" + port}, 403},
		{"text/plain", []string{"Content-Type", "text/plain"}, 415},
		{"form", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415},
		{"no content type", []string{"Content-Type", ""}, 415},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ran.Load()
			status, ct, body := post(t, srv.URL, call, tc.kv...)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var env struct {
				ID    json.RawMessage `json:"id"`
				Error *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &env); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if tc.status == 200 {
				if env.Error != nil || ran.Load() != before+1 {
					t.Errorf("refused: %s", body)
				}
				return
			}
			if env.Error == nil || env.Error.Code != -32600 || string(env.ID) != "null" || ran.Load() != before {
				t.Errorf("refusal %s; the handler ran %d times", body, ran.Load()-before)
			}
		})
	}

	// What the options allow.
	open := httptest.NewServer(rpchttp.NewHandler(countingHandler(&ran), rpchttp.Options{
		AllowedOrigins: []string{"https://app.example.com"}, AllowedHosts: []string{"api.example.com"},
	}))
	t.Cleanup(open.Close)
	_, port, _ = net.SplitHostPort(open.Listener.Addr().String())
	if status, _, body := post(t, open.URL, call, "Origin", "https://app.example.com", "Host", "api.example.com:"+port); status != 200 {
		t.Errorf("an allowed origin and host: %d %s", status, body)
	}
	if status, _, body := post(t, open.URL, call, "Origin", "https://other.example.com"); status != 403 {
		t.Errorf("an origin not allowed: %d %s", status, body)
	}
	off := httptest.NewServer(rpchttp.NewHandler(countingHandler(&ran), rpchttp.Options{DisableHostCheck: true}))
	t.Cleanup(off.Close)
	if status, _, body := post(t, off.URL, call, "Host", "proxy.example.com"); status != 200 {
		t.Errorf("DisableHostCheck: %d %s", status, body)
	}
}

// countingHandler is specHandler, counting its calls.
func countingHandler(n *atomic.Int32) runtime.Handler {
	return runtime.HandlerFunc(func(ctx context.Context, req *runtime.Request) (json.RawMessage, error) {
		n.Add(1)
		return specHandler.ServeRPC(ctx, req)
	})
}
