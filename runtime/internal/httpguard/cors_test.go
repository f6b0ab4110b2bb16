package httpguard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestNormalizeOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://App.Example.com", "https://app.example.com"},
		{"https://app.example.com/", "https://app.example.com"},
		{"https://app.example.com:443", "https://app.example.com"},
		{"http://app.example.com:80", "http://app.example.com"},
		{"http://app.example.com:8080", "http://app.example.com:8080"},
		{"HTTP://[::1]:3000", "http://[::1]:3000"},
		{"https://app.example.com/path", ""},
		{"https://app.example.com?x", ""},
		{"https://user@app.example.com", ""},
		{"ftp://app.example.com", ""},
		{"app.example.com", ""},
		{"null", ""},
		{"", ""},
	} {
		got, err := NormalizeOrigin(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("NormalizeOrigin(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeOrigin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestNewCORSRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    CORSConfig
		want string
	}{
		{"empty", CORSConfig{}, "no origins"},
		{"wildcard with credentials", CORSConfig{Origins: []string{"*"}, Credentials: true}, "credentials"},
		{"wildcard among origins", CORSConfig{Origins: []string{"*", "https://a.example"}}, "alone"},
		{"path", CORSConfig{Origins: []string{"https://a.example/app"}}, "scheme://host"},
	} {
		if _, err := NewCORS(tc.c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewCORS: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestCORSMaxAge: the default, an explicit value (whole seconds, at least
// one) and none.
func TestCORSMaxAge(t *testing.T) {
	for _, tc := range []struct {
		age  time.Duration
		want string
	}{{0, "7200"}, {90 * time.Second, "90"}, {time.Millisecond, "1"}, {-1, ""}} {
		c, err := NewCORS(CORSConfig{Origins: []string{"https://a.example"}, Methods: []string{"POST"}, MaxAge: tc.age})
		if err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodOptions, "/", nil)
		r.Header.Set("Origin", "https://a.example")
		r.Header.Set("Access-Control-Request-Method", "POST")
		w := httptest.NewRecorder()
		if msg := c.Preflight(w, r); msg != "" || w.Code != 204 {
			t.Fatalf("MaxAge %v: %d %q", tc.age, w.Code, msg)
		}
		if got := w.Header().Get("Access-Control-Max-Age"); got != tc.want {
			t.Errorf("MaxAge %v: Access-Control-Max-Age %q, want %q", tc.age, got, tc.want)
		}
	}
}

// TestCORSSharedValues: the header values responses share stay as they
// are when a handler adds to a header after them.
func TestCORSSharedValues(t *testing.T) {
	c, err := NewCORS(CORSConfig{Origins: []string{"https://a.example"}, Methods: []string{"POST"}, Credentials: true, Expose: []string{"X-A"}})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodOptions, "/", nil)
	r.Header.Set("Origin", "https://a.example")
	r.Header.Set("Access-Control-Request-Method", "POST")
	for range 2 {
		w := httptest.NewRecorder()
		c.Preflight(w, r)
		c.SetHeaders(w.Header(), r)
		w.Header().Add("Access-Control-Allow-Origin", "x")
		w.Header().Add("Access-Control-Expose-Headers", "x")
		w.Header().Add("Access-Control-Allow-Credentials", "x")
	}
	if len(valOrigin) != 1 || valOrigin[0] != "Origin" || len(valTrue) != 1 || len(c.origins[0]) != 1 || len(c.expose) != 1 {
		t.Fatalf("shared values changed: %q %q %q %q", valOrigin, valTrue, c.origins[0], c.expose)
	}
	w := httptest.NewRecorder()
	c.SetHeaders(w.Header(), r)
	if got := w.Header().Values("Vary"); len(got) != 1 || got[0] != "Origin" {
		t.Errorf("Vary %q, want [Origin]", got)
	}
}
