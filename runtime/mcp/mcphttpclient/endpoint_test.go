package mcphttpclient

import (
	"net/url"
	"testing"

	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// TestURLEndpoint: a URL names its host, its port (the scheme's default
// when it has none), TCP and HTTP.
func TestURLEndpoint(t *testing.T) {
	for raw, want := range map[string]mcpclient.Endpoint{
		"http://127.0.0.1:8080/mcp":      {Transport: "tcp", Address: "127.0.0.1", Port: 8080, Protocol: "http"},
		"https://mcp.example.com/v1/mcp": {Transport: "tcp", Address: "mcp.example.com", Port: 443, Protocol: "http"},
		"http://[::1]/mcp":               {Transport: "tcp", Address: "::1", Port: 80, Protocol: "http"},
	} {
		u, _ := url.Parse(raw)
		if got := urlEndpoint(u); got != want {
			t.Errorf("%s: %+v, want %+v", raw, got, want)
		}
	}
	if got := urlEndpoint(nil); got != (mcpclient.Endpoint{}) {
		t.Errorf("nil URL: %+v", got)
	}
}
