package mcpclient

import "github.com/rpcgen/rpcgen/runtime"

// Endpoint is the server's end of a client's transport, as the transport
// knows it: what telemetry records of a request as network.transport,
// server.address, server.port and network.protocol.name (ext/otel's
// MCPClient does).
type Endpoint struct {
	// Transport is the network transport: runtime.TransportPipe (a
	// subprocess's stdio), runtime.TransportTCP (HTTP), runtime.TransportUnix;
	// "" when the transport does not say.
	Transport string
	// Address is the server's host name or IP address as the client was
	// given it (no DNS lookup), or a Unix socket's path; "" for a pipe.
	Address string
	// Port is the server's port; 0 when there is none.
	Port int
	// Protocol is the application protocol MCP goes over: "http"; "" for
	// none (stdio).
	Protocol string
}

// Endpoint returns the server's end of the client's transport: what a
// Transport says as an EndpointReporter (mcphttpclient's do), a pipe for
// DialCommand, and for Connect what its Framer says as a TransportNamer.
func (c *Client) Endpoint() Endpoint { return c.endpoint }

// endpointOf returns what t, a Transport or a Framer, says of its far end.
func endpointOf(t any) Endpoint {
	switch t := t.(type) {
	case EndpointReporter:
		return t.Endpoint()
	case TransportNamer:
		return Endpoint{Transport: t.Transport()}
	}
	return Endpoint{}
}

var pipeEndpoint = Endpoint{Transport: runtime.TransportPipe}
