package mcphttp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/internal/rpctest"
)

func TestWriteError(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   string
		want string
	}{
		{"no id", "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad \"thing\"\n"}}`},
		{"number", "7", `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"bad \"thing\"\n"}}`},
		{"string", `"a-1"`, `{"jsonrpc":"2.0","id":"a-1","error":{"code":-32600,"message":"bad \"thing\"\n"}}`},
		{"object is no id", `{"x":1}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad \"thing\"\n"}}`},
		{"null", `null`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad \"thing\"\n"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			var id []byte
			if tc.id != "" {
				id = []byte(tc.id)
			}
			writeError(rec, http.StatusTeapot, id, -32600, "bad \"thing\"\n")
			if rec.Code != http.StatusTeapot {
				t.Errorf("status %d, want %d", rec.Code, http.StatusTeapot)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q", got)
			}
			body := rec.Body.String()
			if strings.TrimSuffix(body, "\n") != tc.want {
				t.Errorf("body\n%s\nwant\n%s", body, tc.want)
			}
			if !rpctest.SameJSON(t, body, tc.want) {
				t.Errorf("body is not the JSON wanted: %s", body)
			}
		})
	}
}

// bodyEcho serves readBody with a 16-byte limit, echoing what it read.
func bodyEcho() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := (&Handler{opts: Options{MaxBodyBytes: 16}}).readBody(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
}

func TestReadBody(t *testing.T) {
	rpctest.CheckLeaks(t)
	ts := httptest.NewServer(bodyEcho())
	t.Cleanup(ts.Close)

	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		chunked     bool
		status      int
		code        int
		msg         string // a part of the error message
	}{
		{name: "json", contentType: "application/json", body: `{"a":1}`, status: 200},
		{name: "json with charset", contentType: "Application/JSON ; charset=utf-8", body: `{"a":1}`, status: 200},
		{name: "at the limit", contentType: "application/json", body: `{"a":"123456789"}`[:16], status: 200},
		{name: "chunked at the limit", contentType: "application/json", body: `{"a":"12345678"}`, chunked: true, status: 200},
		{name: "empty", contentType: "application/json", body: ``, status: 200},
		{name: "text", contentType: "text/plain", body: `{}`, status: 415, code: -32600, msg: "application/json"},
		{name: "no content type", body: `{}`, status: 415, code: -32600, msg: "application/json"},
		{name: "json-ish", contentType: "application/jsonx", body: `{}`, status: 415, code: -32600, msg: "application/json"},
		{name: "too large", contentType: "application/json", body: `{"a":"1234567890"}`, status: 413, code: -32600, msg: "16 bytes"},
		{name: "chunked too large", contentType: "application/json", body: `{"a":"1234567890"}`, chunked: true, status: 413, code: -32600, msg: "16 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				body = io.MultiReader(body) // hides the length
			}
			req, err := http.NewRequest(http.MethodPost, ts.URL, body)
			if err != nil {
				t.Fatal(err)
			}
			if tc.chunked {
				req.ContentLength = -1
			}
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, got := roundTrip(t, ts, req)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, got)
			}
			if tc.status == 200 {
				if string(got) != tc.body {
					t.Errorf("read %q, want %q", got, tc.body)
				}
				return
			}
			wantErrorBody(t, resp, got, tc.code, tc.msg)
		})
	}
}

// failingBody fails after its first bytes, as a connection cut mid-body does.
type failingBody struct{ sent bool }

func (b *failingBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, `{"jsonrpc"`), nil
	}
	return 0, errors.New("connection reset")
}

func (b *failingBody) Close() error { return nil }

func TestReadBodyReadError(t *testing.T) {
	for _, length := range []int64{-1, 40} {
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.Body = &failingBody{}
		req.ContentLength = length
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		if _, ok := (&Handler{opts: Options{MaxBodyBytes: 1 << 20}}).readBody(rec, req); ok {
			t.Fatalf("length %d: readBody succeeded on a failing body", length)
		}
		if rec.Code != http.StatusBadRequest {
			t.Errorf("length %d: status %d, want 400", length, rec.Code)
		}
		wantErrorBody(t, rec.Result(), rec.Body.Bytes(), -32700, "connection reset")
	}
}

func TestNewSessionID(t *testing.T) {
	seen := make(map[string]bool)
	for range 1000 {
		id := newSessionID()
		if len(id) < 22 { // 128 bits in base64; base32 needs 26
			t.Fatalf("id %q is too short to hold 128 bits", id)
		}
		for i := 0; i < len(id); i++ {
			if c := id[i]; c < 0x21 || c > 0x7e {
				t.Fatalf("id %q has a character outside visible ASCII", id)
			}
		}
		if strings.ContainsAny(id, "&=?#%+/ ") {
			t.Fatalf("id %q needs escaping in a URL query", id)
		}
		if seen[id] {
			t.Fatalf("id %q repeated", id)
		}
		seen[id] = true
	}
}
