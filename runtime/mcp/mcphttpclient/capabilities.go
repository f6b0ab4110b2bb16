package mcphttpclient

import "github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"

// The optional capabilities of mcpclient.Transport each HTTP transport has:
// a renamed method fails the build here rather than silently dropping a
// session's standalone stream, its renewal or its id.
var (
	_ mcpclient.Transport         = (*streamable)(nil)
	_ mcpclient.IncomingSetter    = (*streamable)(nil)
	_ mcpclient.SessionIDReporter = (*streamable)(nil)
	_ mcpclient.EndpointReporter  = (*streamable)(nil)
	_ mcpclient.SessionRenewer    = (*streamable)(nil)
	_ mcpclient.RequestAnswerer   = (*streamable)(nil)

	_ mcpclient.Transport        = (*sseTransport)(nil)
	_ mcpclient.IncomingSetter   = (*sseTransport)(nil)
	_ mcpclient.EndpointReporter = (*sseTransport)(nil)
	_ mcpclient.SessionRenewer   = (*sseTransport)(nil)
)
