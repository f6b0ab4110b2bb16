package mcphttpclient

import (
	"net/url"
	"strconv"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// urlEndpoint is the server's end of an HTTP transport to u: its host (as
// given, no DNS lookup) and port (the scheme's when the URL has none), over
// TCP. nil u (a URL that did not parse) says nothing.
func urlEndpoint(u *url.URL) mcpclient.Endpoint {
	if u == nil {
		return mcpclient.Endpoint{}
	}
	e := mcpclient.Endpoint{Transport: runtime.TransportTCP, Address: u.Hostname(), Protocol: "http"}
	if p, err := strconv.Atoi(u.Port()); err == nil {
		e.Port = p
	} else if u.Scheme == "https" {
		e.Port = 443
	} else {
		e.Port = 80
	}
	return e
}

// Endpoint says where the transport's requests go (mcpclient.Client's
// Endpoint).
func (t *streamable) Endpoint() mcpclient.Endpoint { return urlEndpoint(t.u) }

// Endpoint says where the transport's requests go (mcpclient.Client's
// Endpoint).
func (t *sseTransport) Endpoint() mcpclient.Endpoint { return urlEndpoint(t.u) }
