// Package mcpgosrv serves the public benchmark's Shop with mcp-go
// (github.com/mark3labs/mcp-go): typed tools with input and output schemas
// (mcp.NewStructuredToolHandler) over its StreamableHTTPServer with its
// defaults (sessions, JSON answers).
package mcpgosrv

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/rpcgen/rpcgen/bench/public/shop"
)

// Handler returns the MCP endpoint serving impl and a function that closes it.
func Handler(impl shop.Shop) (http.Handler, func() error) {
	s := server.NewMCPServer("BenchmarkMcpGoServer", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("search_products",
		mcp.WithDescription("Search products by category and price range, merged with popularity data"),
		mcp.WithInputSchema[shop.SearchArgs](), mcp.WithOutputSchema[shop.SearchResult]()),
		mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in shop.SearchArgs) (shop.SearchResult, error) {
			return impl.SearchProducts(ctx, in)
		}))
	s.AddTool(mcp.NewTool("get_user_cart",
		mcp.WithDescription("Get user cart details with recent order history"),
		mcp.WithInputSchema[shop.CartArgs](), mcp.WithOutputSchema[shop.CartResult]()),
		mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in shop.CartArgs) (shop.CartResult, error) {
			return impl.GetUserCart(ctx, in)
		}))
	s.AddTool(mcp.NewTool("checkout",
		mcp.WithDescription("Process checkout: calculate total, update rate limit, record history"),
		mcp.WithInputSchema[shop.CheckoutArgs](), mcp.WithOutputSchema[shop.CheckoutResult]()),
		mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in shop.CheckoutArgs) (shop.CheckoutResult, error) {
			return impl.Checkout(ctx, in)
		}))
	h := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
	return h, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return h.Shutdown(ctx)
	}
}
