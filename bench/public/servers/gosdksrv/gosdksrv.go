// Package gosdksrv serves the public benchmark's Shop with the official Go
// SDK (github.com/modelcontextprotocol/go-sdk), configured as the original
// benchmark's Go server: typed tools added with mcp.AddTool and a
// StreamableHTTPHandler that is stateless and answers with JSON.
package gosdksrv

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpcgen/rpcgen/bench/public/shop"
)

// Handler returns the MCP endpoint serving impl and a function that closes it.
func Handler(impl shop.Shop) (http.Handler, func() error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "BenchmarkGoSDKServer", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "search_products",
		Description: "Search products by category and price range, merged with popularity data"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in shop.SearchArgs) (*mcp.CallToolResult, shop.SearchResult, error) {
			out, err := impl.SearchProducts(ctx, in)
			return nil, out, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "get_user_cart", Description: "Get user cart details with recent order history"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in shop.CartArgs) (*mcp.CallToolResult, shop.CartResult, error) {
			out, err := impl.GetUserCart(ctx, in)
			return nil, out, err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "checkout",
		Description: "Process checkout: calculate total, update rate limit, record history"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in shop.CheckoutArgs) (*mcp.CallToolResult, shop.CheckoutResult, error) {
			out, err := impl.Checkout(ctx, in)
			return nil, out, err
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return h, func() error { return nil }
}
