package rpchttp_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

const corsOrigin = "https://app.example.com"

// request sends method to url with the header pairs ("Host" rewrites the
// request's Host, an empty value removes the header) and returns the
// response, its body read, on a connection of its own.
func request(t *testing.T, method, url, body string, kv ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for i := 0; i+1 < len(kv); i += 2 {
		switch {
		case kv[i] == "Host":
			req.Host = kv[i+1]
		case kv[i+1] == "":
			req.Header.Del(kv[i])
		default:
			req.Header.Set(kv[i], kv[i+1])
		}
	}
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestCORS: with Options.CORS a preflight from a listed origin for POST
// gets 204 naming the headers it asked for, and the calls of that origin
// carry Access-Control-Allow-Origin; a preflight from another origin, for
// another method or with another header gets 403 (a JSON-RPC error), a
// foreign origin's call still gets 403 and never runs, and without CORS
// OPTIONS gets 405.
func TestCORS(t *testing.T) {
	rpctest.CheckLeaks(t)
	var ran atomic.Int32
	on := httptest.NewServer(rpchttp.NewHandler(countingHandler(&ran), rpchttp.Options{CORS: &rpchttp.CORS{AllowedOrigins: []string{corsOrigin}}}))
	t.Cleanup(on.Close)
	off := httptest.NewServer(rpchttp.NewHandler(countingHandler(&ran), rpchttp.Options{AllowedOrigins: []string{corsOrigin}}))
	t.Cleanup(off.Close)
	_, port, _ := net.SplitHostPort(on.Listener.Addr().String())
	call := `{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2,0]}`
	for _, tc := range []struct {
		name   string
		url    string
		method string
		kv     []string
		status int
		allow  string // Access-Control-Allow-Origin wanted
		want   string // in Access-Control-Allow-Headers (204) or the error (403)
		runs   bool
	}{
		{"preflight", on.URL, "OPTIONS", []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,authorization,traceparent"}, 204, corsOrigin, "content-type, authorization, traceparent", false},
		{"preflight, foreign origin", on.URL, "OPTIONS", []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST"}, 403, "", "Origin not allowed", false},
		{"preflight, loopback origin not listed", on.URL, "OPTIONS", []string{"Origin", "http://127.0.0.1:1", "Access-Control-Request-Method", "POST"}, 403, "", "Origin not allowed", false},
		{"preflight for GET", on.URL, "OPTIONS", []string{"Origin", corsOrigin, "Access-Control-Request-Method", "GET"}, 403, "", "method GET", false},
		{"preflight, MCP header", on.URL, "OPTIONS", []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, mcp-session-id"}, 403, "", "mcp-session-id", false},
		{"preflight, rebound Host", on.URL, "OPTIONS", []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Host", "evil.example:" + port}, 403, "", "Host not allowed", false},
		{"call from the listed origin", on.URL, "POST", []string{"Origin", corsOrigin, "Content-Type", "application/json"}, 200, corsOrigin, "", true},
		{"call from a foreign origin", on.URL, "POST", []string{"Origin", "https://evil.example", "Content-Type", "application/json"}, 403, "", "Origin not allowed", false},
		{"call without origin", on.URL, "POST", []string{"Content-Type", "application/json"}, 200, "", "", true},
		{"text/plain from the listed origin", on.URL, "POST", []string{"Origin", corsOrigin, "Content-Type", "text/plain"}, 415, corsOrigin, "", false},
		{"OPTIONS that is no preflight", on.URL, "OPTIONS", []string{"Origin", corsOrigin}, 405, corsOrigin, "", false},
		{"preflight without CORS", off.URL, "OPTIONS", []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST"}, 405, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ran.Load()
			body := ""
			if tc.method == "POST" {
				body = call
			}
			resp, got := request(t, tc.method, tc.url, body, tc.kv...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, got)
			}
			h := resp.Header
			if a := h.Get("Access-Control-Allow-Origin"); a != tc.allow {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", a, tc.allow)
			}
			if tc.url == on.URL && tc.status != 403 && !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
				t.Errorf("Vary %q, want Origin", h.Values("Vary"))
			}
			switch tc.status {
			case 204:
				if a := h.Get("Access-Control-Allow-Headers"); a != tc.want {
					t.Errorf("Access-Control-Allow-Headers %q, want %q", a, tc.want)
				}
				if a := h.Get("Access-Control-Allow-Methods"); a != "POST" {
					t.Errorf("Access-Control-Allow-Methods %q, want POST", a)
				}
				if a := h.Get("Access-Control-Max-Age"); a != "7200" {
					t.Errorf("Access-Control-Max-Age %q", a)
				}
			case 403:
				if !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, tc.want) {
					t.Errorf("body %s, want an Invalid Request error saying %q", got, tc.want)
				}
			case 200:
				if !strings.Contains(got, `"result":3`) {
					t.Errorf("body %s", got)
				}
				if tc.allow != "" && h.Get("Access-Control-Expose-Headers") != "WWW-Authenticate" {
					t.Errorf("Access-Control-Expose-Headers %q", h.Get("Access-Control-Expose-Headers"))
				}
			case 405:
				if a := h.Get("Allow"); a != "POST" {
					t.Errorf("Allow %q", a)
				}
			}
			if ran := ran.Load() != before; ran != tc.runs {
				t.Errorf("handler ran: %v, want %v", ran, tc.runs)
			}
		})
	}
}

// TestCORSOptionsRefused: NewHandler panics on a CORS it cannot serve.
func TestCORSOptionsRefused(t *testing.T) {
	for _, c := range []rpchttp.CORS{
		{AllowedOrigins: []string{"*"}, AllowCredentials: true},
		{AllowedOrigins: []string{"app.example.com"}},
		{},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "rpchttp: Options.CORS") {
					t.Errorf("NewHandler with %+v: recovered %v, want a panic naming Options.CORS", c, r)
				}
			}()
			rpchttp.NewHandler(specHandler, rpchttp.Options{CORS: &c})
		}()
	}
}
