// Package rpcgensrv serves the public benchmark's Shop with rpcgen: the
// tools generated from the shop.Shop interface, over mcphttp's Streamable
// HTTP handler with its defaults (sessions, JSON answers).
package rpcgensrv

import (
	"net/http"

	"github.com/rpcgen/rpcgen/bench/public/shop"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcphttp"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpserver"
)

// Handler returns the MCP endpoint serving impl and a function that closes it.
func Handler(impl shop.Shop) (http.Handler, func() error) {
	srv := mcpserver.New(mcp.Implementation{Name: "BenchmarkRpcgenServer", Version: "1.0.0"}, nil)
	srv.AddTools(shop.ShopTools(impl)...)
	h := mcphttp.NewHandler(srv, nil)
	return h, h.Close
}
