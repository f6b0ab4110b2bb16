package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

const corsOrigin = "https://app.example.com"

// corsServer serves a Handler with opts on a 127.0.0.1 listener.
func corsServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	h := NewHandler(newTestServer(), &opts)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	return ts
}

// corsRequest sends method to ts with the given header pairs ("Host"
// rewrites the request's Host) and body.
func corsRequest(t *testing.T, ts *httptest.Server, method, body string, kv ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "Host" {
			req.Host = kv[i+1]
		} else {
			req.Header.Set(kv[i], kv[i+1])
		}
	}
	return roundTrip(t, ts, req)
}

// TestCORSPreflight: a preflight from a listed origin gets 204 with the
// transports' methods and the headers it asked for named back; one from any
// other origin, or for a method or header the transports do not use, gets
// 403 with a JSON-RPC error saying why, and without CORS (or without
// Access-Control-Request-Method) OPTIONS gets 405.
func TestCORSPreflight(t *testing.T) {
	rpctest.CheckLeaks(t)
	on := corsServer(t, Options{CORS: &CORS{AllowedOrigins: []string{corsOrigin + "/"}, AllowedHeaders: []string{"X-Tenant"}}})
	off := corsServer(t, Options{AllowedOrigins: []string{corsOrigin}})
	port := listenPort(on)
	mcpHeaders := "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region, mcp-param-a-b"
	for _, tc := range []struct {
		name    string
		ts      *httptest.Server
		kv      []string
		status  int
		headers string // Access-Control-Allow-Headers wanted on 204
		refusal string // the error message's part wanted on 403
	}{
		{"POST with MCP's headers", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", mcpHeaders}, 204, mcpHeaders, ""},
		{"GET resuming a stream", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "Last-Event-ID,Mcp-Session-Id"}, 204, "last-event-id, mcp-session-id", ""},
		{"DELETE", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "DELETE", "Access-Control-Request-Headers", "mcp-session-id"}, 204, "mcp-session-id", ""},
		{"no headers asked", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST"}, 204, "", ""},
		{"a header the options add", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,x-tenant"}, 204, "content-type, x-tenant", ""},
		{"foreign origin", on, []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST"}, 403, "", "Origin not allowed"},
		{"loopback origin not listed", on, []string{"Origin", "http://localhost:" + port, "Access-Control-Request-Method", "POST"}, 403, "", "Origin not allowed"},
		{"null origin", on, []string{"Origin", "null", "Access-Control-Request-Method", "POST"}, 403, "", "Origin not allowed"},
		{"listed origin, other scheme", on, []string{"Origin", "http://app.example.com", "Access-Control-Request-Method", "POST"}, 403, "", "Origin not allowed"},
		{"PUT", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "PUT"}, 403, "", "method PUT"},
		{"a header nobody allowed", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, x-secret"}, 403, "", "x-secret"},
		{"the bare Mcp-Param- prefix", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "mcp-param-"}, 403, "", "mcp-param-"},
		{"rebound Host", on, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST", "Host", "evil.example:" + port}, 403, "", "Host not allowed"},
		{"OPTIONS that is no preflight", on, []string{"Origin", corsOrigin}, 405, "", ""},
		{"without CORS", off, []string{"Origin", corsOrigin, "Access-Control-Request-Method", "POST"}, 405, "", ""},
		{"without CORS, foreign origin", off, []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST"}, 403, "", "Origin not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := corsRequest(t, tc.ts, http.MethodOptions, "", tc.kv...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, body)
			}
			h := resp.Header
			switch tc.status {
			case 204:
				for k, want := range map[string]string{
					"Access-Control-Allow-Origin":      corsOrigin,
					"Access-Control-Allow-Methods":     "GET, POST, DELETE",
					"Access-Control-Allow-Headers":     tc.headers,
					"Access-Control-Max-Age":           "7200",
					"Access-Control-Allow-Credentials": "",
				} {
					if got := h.Get(k); got != want {
						t.Errorf("%s: %q, want %q", k, got, want)
					}
				}
				if vary := strings.Join(h.Values("Vary"), ", "); !strings.Contains(vary, "Origin") || !strings.Contains(vary, "Access-Control-Request-Headers") {
					t.Errorf("Vary: %q, want Origin and Access-Control-Request-Headers", vary)
				}
				if len(body) != 0 {
					t.Errorf("body %q, want none", body)
				}
			case 403:
				wantErrorBody(t, resp, body, -32600, tc.refusal)
				if got := h.Get("Access-Control-Allow-Origin"); got != "" && tc.refusal == "Origin not allowed" {
					t.Errorf("refused origin got Access-Control-Allow-Origin %q", got)
				}
			case 405:
				if got := h.Get("Allow"); got != "GET, POST, DELETE" {
					t.Errorf("Allow %q", got)
				}
				if got := h.Get("Access-Control-Allow-Origin"); got != "" {
					t.Errorf("405 with Access-Control-Allow-Origin %q", got)
				}
			}
		})
	}
}

// TestCORSResponses: the responses to a listed origin name it and expose
// Mcp-Session-Id; a foreign origin still gets 403 and no CORS headers; a
// request without Origin is served as before, with Vary: Origin for caches.
func TestCORSResponses(t *testing.T) {
	rpctest.CheckLeaks(t)
	ts := corsServer(t, Options{CORS: &CORS{AllowedOrigins: []string{corsOrigin}, AllowCredentials: true}})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	accept := "application/json, text/event-stream"
	for _, tc := range []struct {
		name   string
		origin string
		status int
		allow  string
	}{
		{"listed origin", corsOrigin, 200, corsOrigin},
		{"foreign origin", "https://evil.example", 403, ""},
		{"no origin", "", 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := []string{"Content-Type", "application/json", "Accept", accept}
			if tc.origin != "" {
				kv = append(kv, "Origin", tc.origin)
			}
			resp, body := corsRequest(t, ts, http.MethodPost, initialize, kv...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, body)
			}
			h := resp.Header
			if got := h.Get("Access-Control-Allow-Origin"); got != tc.allow {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tc.allow)
			}
			if !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
				t.Errorf("Vary %q, want Origin", h.Values("Vary"))
			}
			if tc.allow == "" {
				if got := h.Get("Access-Control-Expose-Headers"); got != "" {
					t.Errorf("Access-Control-Expose-Headers %q for an origin not listed", got)
				}
				return
			}
			if h.Get(httpwire.HdrSessionID) == "" {
				t.Errorf("no session id: %s", body)
			}
			if got := h.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "Mcp-Session-Id") || !strings.Contains(got, "Mcp-Protocol-Version") || !strings.Contains(got, "WWW-Authenticate") {
				t.Errorf("Access-Control-Expose-Headers %q", got)
			}
			if got := h.Get("Access-Control-Allow-Credentials"); got != "true" {
				t.Errorf("Access-Control-Allow-Credentials %q, want true", got)
			}
		})
	}
}

// TestCORSWildcard: "*" admits every origin's pages with a literal "*" (no
// Vary needed), and cannot go with credentials.
func TestCORSWildcard(t *testing.T) {
	rpctest.CheckLeaks(t)
	ts := corsServer(t, Options{CORS: &CORS{AllowedOrigins: []string{"*"}, MaxAge: -1}})
	resp, body := corsRequest(t, ts, http.MethodOptions, "", "Origin", "https://anyone.example",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type",
		"Access-Control-Request-Private-Network", "true")
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("preflight: %d, Allow-Origin %q; %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), body)
	}
	if got := resp.Header.Get("Access-Control-Max-Age"); got != "" {
		t.Errorf("MaxAge -1: Access-Control-Max-Age %q", got)
	}
	if got := resp.Header.Get("Access-Control-Allow-Private-Network"); got != "true" {
		t.Errorf("Access-Control-Allow-Private-Network %q, want true", got)
	}
	resp, body = corsRequest(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Origin", "https://anyone.example",
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if resp.StatusCode == http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("POST: %d, Allow-Origin %q; %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), body)
	}

	for _, c := range []CORS{
		{AllowedOrigins: []string{"*"}, AllowCredentials: true},
		{AllowedOrigins: []string{"https://app.example.com/path"}},
		{},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "Options.CORS") {
					t.Errorf("NewHandler with %+v: recovered %v, want a panic naming Options.CORS", c, r)
				}
			}()
			NewHandler(newTestServer(), &Options{CORS: &c})
		}()
	}
}

// TestCORSWithAuth: a preflight needs no token (a browser sends none with
// one), and a listed page can read the 401 challenge's WWW-Authenticate, to
// find the authorization server.
func TestCORSWithAuth(t *testing.T) {
	rpctest.CheckLeaks(t)
	ts := corsServer(t, Options{Auth: testAuth(), CORS: &CORS{AllowedOrigins: []string{corsOrigin}}})
	resp, body := corsRequest(t, ts, http.MethodOptions, "", "Origin", corsOrigin,
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Headers") != "authorization, content-type" {
		t.Fatalf("preflight: %d, Allow-Headers %q; %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Headers"), body)
	}
	resp, body = corsRequest(t, ts, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Origin", corsOrigin,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("POST without a token: %d, WWW-Authenticate %q; %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != corsOrigin {
		t.Errorf("401: Access-Control-Allow-Origin %q, want %q", got, corsOrigin)
	}
	if got := resp.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "WWW-Authenticate") {
		t.Errorf("401: Access-Control-Expose-Headers %q, want WWW-Authenticate among them", got)
	}
}
