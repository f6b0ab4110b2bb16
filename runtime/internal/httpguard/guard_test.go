package httpguard_test

import (
	"net/http"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
)

// TestHeaderValue: for the canonical names a request's header is read by,
// HeaderValue answers as Header.Get does, whether the header came through
// net/http's parser or was set with Set, Add or a lower-case name.
func TestHeaderValue(t *testing.T) {
	h := http.Header{}
	h.Set("mcp-session-id", "s1")
	h.Add("Content-Type", "application/json")
	h.Add("content-type", "text/plain")
	h["Origin"] = []string{""}
	for _, key := range []string{"Mcp-Session-Id", "Content-Type", "Origin", "Sec-Fetch-Site", "Mcp-Protocol-Version"} {
		if got, want := httpguard.HeaderValue(h, key), h.Get(key); got != want {
			t.Errorf("HeaderValue(%q) = %q, Get says %q", key, got, want)
		}
	}
	if got := httpguard.HeaderValue(h, "Content-Type"); got != "application/json" {
		t.Errorf("HeaderValue(Content-Type) = %q, want the first value", got)
	}
}
