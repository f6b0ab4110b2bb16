package mcpserver

import (
	"context"
	"errors"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	_ "github.com/rpcgen/rpcgen/runtime/mcp/internal/askcrypto" // the ciphers package ask installs
)

// elicit, sample and listRoots are ask.Elicit, ask.Sample and ask.ListRoots,
// which this package's own tests cannot import (package ask imports mcp).

var errNoCall = errors.New("ask: not in an MCP handler's context: cannot ask the client")

func elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if cc := callFrom(ctx); cc != nil {
		return cc.Elicit("", p)
	}
	return nil, errNoCall
}

func sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if cc := callFrom(ctx); cc != nil {
		return cc.Sample("", p)
	}
	return nil, errNoCall
}

func listRoots(ctx context.Context) ([]mcp.Root, error) {
	if cc := callFrom(ctx); cc != nil {
		return cc.ListRoots("")
	}
	return nil, errNoCall
}
