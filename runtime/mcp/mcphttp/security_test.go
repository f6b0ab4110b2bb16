package mcphttp

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
)

// guardServer serves h.guard alone on a 127.0.0.1 listener: 204 when the
// request passes, with the token subject (if any) in X-Subject.
func guardServer(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	h := NewHandler(newTestServer(), &opts)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, ok := h.guard(w, r)
		if !ok {
			return
		}
		if ti := TokenInfoFromContext(r.Context()); ti != nil {
			w.Header().Set("X-Subject", ti.Subject)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// do sends a POST with the given Host (when not "") and headers, and returns
// the status and body.
func guardPost(t *testing.T, ts *httptest.Server, host string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if host != "" {
		req.Host = host
	}
	resp, body := roundTrip(t, ts, req)
	return resp, body
}

// wantGuarded checks the answer to a POST that passes the guard (204, when
// ok) or that the guard refuses (403, with an error naming what).
func wantGuarded(t *testing.T, resp *http.Response, body []byte, ok bool, what string) {
	t.Helper()
	if ok {
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("status %d, want 204; body %s", resp.StatusCode, body)
		}
		return
	}
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	wantErrorBody(t, resp, body, -32600, what)
}

func listenPort(ts *httptest.Server) string {
	_, p, _ := net.SplitHostPort(ts.Listener.Addr().String())
	return p
}

func TestGuardOrigin(t *testing.T) {
	rpctest.CheckLeaks(t)
	plain := guardServer(t, Options{})
	listed := guardServer(t, Options{AllowedOrigins: []string{"https://app.example.com", "null"}})
	anyOrigin := guardServer(t, Options{AllowedOrigins: []string{"*"}})
	own := "http://127.0.0.1:" + listenPort(plain)

	for _, tc := range []struct {
		name    string
		ts      *httptest.Server
		origins []string // nil: no Origin header
		ok      bool
	}{
		{"no origin", plain, nil, true},
		{"empty origin", plain, []string{""}, true},
		{"own origin", plain, []string{own}, true},
		{"own origin, other case", plain, []string{strings.ToUpper(own)}, true},
		{"loopback, other port", plain, []string{"http://localhost:5173"}, true},
		{"loopback IPv4, other port", plain, []string{"http://127.0.0.1:1"}, true},
		{"loopback IPv6", plain, []string{"http://[::1]:8080"}, true},
		{"loopback https", plain, []string{"https://localhost"}, true},
		{"evil", plain, []string{"http://evil.example.com"}, false},
		{"evil on the same port", plain, []string{"http://evil.example.com:" + listenPort(plain)}, false},
		{"localhost lookalike", plain, []string{"http://localhost.evil.example.com"}, false},
		{"null", plain, []string{"null"}, false},
		{"file", plain, []string{"file://"}, false},
		{"not an origin", plain, []string{own + "/path"}, false},
		{"userinfo", plain, []string{"http://127.0.0.1@evil.example.com"}, false},
		{"two origins", plain, []string{own, own}, false},
		{"listed", listed, []string{"https://app.example.com"}, true},
		{"listed, other case", listed, []string{"https://APP.example.com"}, true},
		{"listed null", listed, []string{"null"}, true},
		{"not listed", listed, []string{"https://app.example.com:8443"}, false},
		{"star", anyOrigin, []string{"http://evil.example.com"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := http.Header{}
			if tc.origins != nil {
				header["Origin"] = tc.origins
			}
			resp, body := guardPost(t, tc.ts, "", header)
			wantGuarded(t, resp, body, tc.ok, "Origin")
		})
	}
}

func TestGuardFetchMetadata(t *testing.T) {
	rpctest.CheckLeaks(t)
	plain := guardServer(t, Options{AllowedOrigins: []string{"https://app.example.com/"}})
	anyOrigin := guardServer(t, Options{AllowedOrigins: []string{"*"}})
	for _, tc := range []struct {
		name   string
		ts     *httptest.Server
		header http.Header
		want   int
	}{
		{"cross-site without Origin", plain, http.Header{"Sec-Fetch-Site": {"cross-site"}}, 403},
		{"same-site without Origin", plain, http.Header{"Sec-Fetch-Site": {"same-site"}}, 204},
		{"same-origin without Origin", plain, http.Header{"Sec-Fetch-Site": {"same-origin"}}, 204},
		{"cross-site, any origin", anyOrigin, http.Header{"Sec-Fetch-Site": {"cross-site"}}, 204},
		{"listed with a trailing slash", plain, http.Header{"Origin": {"https://app.example.com"}, "Sec-Fetch-Site": {"cross-site"}}, 204},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := guardPost(t, tc.ts, "", tc.header)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.want, body)
			}
		})
	}
}

// guardDirect runs h.guard on a request that came in on the local address
// local (nil: none, as for a handler called outside a server).
func guardDirect(h *Handler, local net.Addr, host string, header http.Header, secure bool) int {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	req.Host = host
	for k, v := range header {
		req.Header[k] = v
	}
	if secure {
		req.TLS = &tls.ConnectionState{}
	} else {
		req.TLS = nil
	}
	if local != nil {
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
	}
	rec := httptest.NewRecorder()
	if _, ok := h.guard(rec, req); ok {
		return http.StatusNoContent
	}
	return rec.Code
}

func TestGuardOriginPublicListener(t *testing.T) {
	h := NewHandler(newTestServer(), nil)
	public := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 443}
	for _, tc := range []struct {
		name   string
		host   string
		origin string
		secure bool
		want   int
	}{
		{"own", "mcp.example.com", "http://mcp.example.com", false, 204},
		{"own, default port", "mcp.example.com:80", "http://mcp.example.com", false, 204},
		{"own https", "mcp.example.com", "https://mcp.example.com", true, 204},
		{"own https, default port", "mcp.example.com", "https://mcp.example.com:443", true, 204},
		{"scheme differs", "mcp.example.com", "https://mcp.example.com", false, 403},
		{"port differs", "mcp.example.com:8080", "http://mcp.example.com:8081", false, 403},
		{"loopback origin off loopback", "mcp.example.com", "http://localhost:3000", false, 403},
		{"evil", "mcp.example.com", "https://evil.example.com", true, 403},
		{"no origin, any host", "evil.example.com", "", false, 204},
		// Off loopback the Host is not checked: a rebound name would not
		// reach this address.
		{"same-origin rebinding off loopback", "evil.example.com", "http://evil.example.com", false, 204},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := http.Header{}
			if tc.origin != "" {
				header.Set("Origin", tc.origin)
			}
			if got := guardDirect(h, public, tc.host, header, tc.secure); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}
	// Without a local address (no server), nothing is known to be loopback.
	if got := guardDirect(h, nil, "evil.example.com", nil, false); got != 204 {
		t.Errorf("no local address: status %d, want 204", got)
	}
}

func TestGuardHost(t *testing.T) {
	rpctest.CheckLeaks(t)
	plain := guardServer(t, Options{})
	allowed := guardServer(t, Options{AllowedHosts: []string{"mcp.test", "pinned.test:1234", "[fd00::1]"}})
	disabled := guardServer(t, Options{DisableHostCheck: true})
	p := listenPort(plain)

	for _, tc := range []struct {
		name string
		ts   *httptest.Server
		host string
		ok   bool
	}{
		{"ip", plain, "127.0.0.1:" + p, true},
		{"ip, no port", plain, "127.0.0.1", true},
		{"localhost", plain, "localhost:" + p, true},
		{"LOCALHOST", plain, "LOCALHOST:" + p, true},
		{"localhost.", plain, "localhost.:" + p, true},
		{"ipv6 loopback", plain, "[::1]:" + p, true},
		{"other loopback ip", plain, "127.1.2.3:" + p, true},
		{"evil", plain, "evil.example.com", false},
		{"evil with port", plain, "evil.example.com:" + p, false},
		{"localhost suffix", plain, "localhost.evil.example.com:" + p, false},
		{"public ip", plain, "192.0.2.1:" + p, false},
		{"allowed", allowed, "mcp.test", true},
		{"allowed, any port", allowed, "MCP.test:8080", true},
		{"allowed with port", allowed, "pinned.test:1234", true},
		{"allowed, other port", allowed, "pinned.test:1235", false},
		{"allowed ipv6", allowed, "[fd00::1]:9", true},
		{"not allowed", allowed, "evil.example.com", false},
		{"check disabled", disabled, "evil.example.com", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := guardPost(t, tc.ts, tc.host, nil)
			wantGuarded(t, resp, body, tc.ok, "Host")
		})
	}
}

// TestGuardHostRaw writes the request bytes itself, as a rebinding browser's
// request arrives: the Host is the attacker's name, the address loopback.
func TestGuardHostRaw(t *testing.T) {
	rpctest.CheckLeaks(t)
	ts := guardServer(t, Options{})
	for _, tc := range []struct {
		host string
		want string
	}{
		{"evil.example.com", "HTTP/1.1 403 "},
		{"127.0.0.1:" + listenPort(ts), "HTTP/1.1 204 "},
	} {
		conn, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: "+tc.host+"\r\nContent-Type: application/json\r\n"+
			"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(conn)
		conn.Close()
		if !strings.HasPrefix(string(got), tc.want) {
			t.Errorf("Host %s: response\n%s\nwant it to start with %q", tc.host, got, tc.want)
		}
	}
}

// TestDNSRebindingProtection is the official conformance suite's scenario
// dns-rebinding-protection, against the whole handler.
func TestDNSRebindingProtection(t *testing.T) {
	rpctest.CheckLeaks(t)
	h := NewHandler(newTestServer(), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { h.Close() })
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	self := "127.0.0.1:" + listenPort(ts)
	for _, tc := range []struct {
		host, origin string
		ok           bool
	}{
		{"evil.example.com", "http://evil.example.com", false},
		{self, "http://" + self, true},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(init))
		req.Host = tc.host
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, body := roundTrip(t, ts, req)
		if tc.ok != (resp.StatusCode/100 == 2) || !tc.ok && resp.StatusCode/100 != 4 {
			t.Errorf("Host %s, Origin %s: status %d; body %s", tc.host, tc.origin, resp.StatusCode, body)
		}
		if !tc.ok {
			wantErrorBody(t, resp, body, -32600, "")
		}
	}
}

func BenchmarkGuard(b *testing.B) {
	h := NewHandler(newTestServer(), nil)
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Host = "127.0.0.1:8080"
	req.Header.Set("Origin", "http://127.0.0.1:8080")
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	rec := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := h.guard(rec, req); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkGuardCORS is BenchmarkGuard for a page of an origin Options.CORS
// lists: the guard adds the CORS headers to each response.
func BenchmarkGuardCORS(b *testing.B) {
	h := NewHandler(newTestServer(), &Options{CORS: &CORS{AllowedOrigins: []string{"https://app.example.com"}}})
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Host = "127.0.0.1:8080"
	req.Header.Set("Origin", "https://app.example.com")
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	rec := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		clear(rec.Header())
		if _, ok := h.guard(rec, req); !ok {
			b.Fatal("refused")
		}
	}
	if rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		b.Fatalf("headers %v", rec.Header())
	}
}
