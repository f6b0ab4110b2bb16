package httpguard_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
)

// TestReadBodyLimits: a body is read whole when it is what its
// Content-Length announces, at or under the limit; one longer than
// announced (a Body that is not net/http's) is an error, a MaxBytesError
// when it also passes the limit; so is one announced or sent over the limit.
func TestReadBodyLimits(t *testing.T) {
	const limit = 10
	for _, tc := range []struct {
		name    string
		body    string
		length  int64  // -1: unknown
		wantErr string // "" for none, "max" for an *http.MaxBytesError
	}{
		{"small", "0123", 4, ""},
		{"at the limit", "0123456789", 10, ""},
		{"unknown length", "0123456789", -1, ""},
		{"unknown length over the limit", "0123456789a", -1, "max"},
		{"announced over the limit", "0123456789a", 11, "max"},
		{"longer than announced", "012345", 4, "body longer than its Content-Length"},
		{"longer than announced, past the limit", "0123456789abc", 10, "max"},
		{"shorter than announced", "01", 4, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, watched := range []bool{false, true} {
				r := httptest.NewRequest("POST", "/", nil)
				r.Body = io.NopCloser(strings.NewReader(tc.body))
				r.ContentLength = tc.length
				w := httptest.NewRecorder()
				var (
					b   []byte
					err error
				)
				if watched {
					var bw httpguard.BodyWatch
					b, err = bw.ReadBody(w, r, limit)
				} else {
					b, err = httpguard.ReadBody(w, r, limit, -1)
				}
				var tooLarge *http.MaxBytesError
				switch {
				case tc.wantErr == "":
					if err != nil || string(b) != tc.body {
						t.Fatalf("watched %v: %q %v, want %q", watched, b, err, tc.body)
					}
				case tc.wantErr == "max":
					if !errors.As(err, &tooLarge) {
						t.Fatalf("watched %v: %q %v, want a MaxBytesError", watched, b, err)
					}
				case err == nil || err.Error() != tc.wantErr:
					t.Fatalf("watched %v: %q %v, want %s", watched, b, err, tc.wantErr)
				}
			}
		})
	}
}
