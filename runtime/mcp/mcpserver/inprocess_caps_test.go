package mcpserver_test

import (
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// InProcessTransport is an mcpclient.Transport with the optional
// capabilities its doc promises. The check lives in a test because package
// mcpserver never imports the client.
var (
	_ mcpclient.Transport       = (*mcpserver.InProcessTransport)(nil)
	_ mcpclient.IncomingSetter  = (*mcpserver.InProcessTransport)(nil)
	_ mcpclient.RequestAnswerer = (*mcpserver.InProcessTransport)(nil)
)
