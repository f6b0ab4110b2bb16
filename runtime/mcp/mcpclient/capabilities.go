package mcpclient

import "context"

// The optional capabilities of a Transport. ConnectTransport and the Client
// look for each by type assertion; a transport implements those its
// protocol has and gains what each doc says. A transport package asserts at
// compile time what it implements (var _ mcpclient.IncomingSetter =
// (*T)(nil)), so that a renamed method fails the build, not a session.

// IncomingSetter is a Transport that can receive messages outside any
// RoundTrip, as a Streamable HTTP session's standalone GET stream or an
// HTTP+SSE session's event stream. ConnectTransport calls SetIncoming once,
// before the handshake, with the function that handles such messages
// (server requests, notifications, progress of calls in flight); without
// it, the client hears the server only inside RoundTrip.
type IncomingSetter interface {
	// SetIncoming sets the function the transport calls with each message
	// the server sends outside a RoundTrip, one at a time.
	SetIncoming(incoming func(msg []byte))
}

// SessionIDReporter is a Transport that knows the id of the server's
// session it speaks to (Streamable HTTP's MCP-Session-Id). The client puts
// it in Request.SessionID, where middleware and telemetry read it.
type SessionIDReporter interface {
	// SessionID returns the current session's id, or "" before the
	// server gave one or when it gives none.
	SessionID() string
}

// EndpointReporter is a Transport that knows the server's end of its
// connection. Client.Endpoint and Request.Server report it (telemetry's
// server.address, server.port, network.transport); without it they are
// empty.
type EndpointReporter interface {
	// Endpoint returns the server's end of the transport.
	Endpoint() Endpoint
}

// TransportNamer is a runtime.Framer that names its network transport
// (runtime.TransportTCP, runtime.TransportUnix, ...). For Connect,
// Client.Endpoint reports the name as Endpoint.Transport.
type TransportNamer interface {
	// Transport returns the network transport's name.
	Transport() string
}

// SessionRenewer is a Transport whose server may end the session (an HTTP
// 404 for a Streamable HTTP session, a closed HTTP+SSE event stream). With
// it the client learns of the end, fails what was in flight with
// ErrSessionExpired, and starts a new session with a new initialize (see
// Options.NoReinitialize); without it a lost session stays lost.
type SessionRenewer interface {
	// SetSessionLost sets the function the transport calls, once per
	// session, when it learns that the server ended it. It must not block.
	SetSessionLost(f func())
	// RenewSession forgets the old session and readies the transport for
	// the initialize of a new one (HTTP+SSE: opens a new stream).
	RenewSession(ctx context.Context) error
}

// RequestAnswerer is a Transport on which the server answers every request,
// as an HTTP server answers every POST, so that its silence never means it
// ignores one. A dual-era client over a transport whose AnswersEveryRequest
// returns true waits for the answer to server/discover within the
// handshake's context, and Options.ProbeTimeout does not apply.
type RequestAnswerer interface {
	// AnswersEveryRequest reports whether the server answers every request.
	AnswersEveryRequest() bool
}
