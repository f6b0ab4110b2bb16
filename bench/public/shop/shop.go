// Package shop is the workload of TM Dev Lab's MCP benchmark v2
// (http4k/benchmark-mcp-servers-v2) as one Go interface: three tools that do
// real Redis and HTTP I/O. Every server in bench/public serves this same
// Backend, so the servers differ only in their MCP library; rpcgen serves it
// through the code generated from Shop.
package shop

import "context"

//go:generate go run github.com/rpcgen/rpcgen/cmd/rpcgen Shop

// Shop is the service every server of the public benchmark offers.
type Shop interface {
	// SearchProducts searches products by category and price range, merged
	// with popularity data.
	SearchProducts(ctx context.Context, args SearchArgs) (SearchResult, error)
	// GetUserCart gets a user's cart with their recent order history.
	GetUserCart(ctx context.Context, args CartArgs) (CartResult, error)
	// Checkout calculates a total, updates the rate limit and records the
	// order in the user's history.
	Checkout(ctx context.Context, args CheckoutArgs) (CheckoutResult, error)
}

// SearchArgs are search_products' arguments; a member left out takes the
// original's default (Electronics, 50, 500, 10).
type SearchArgs struct {
	Category string  `json:"category,omitempty"`
	MinPrice float64 `json:"min_price,omitempty"`
	MaxPrice float64 `json:"max_price,omitempty"`
	Limit    int     `json:"limit,omitempty"`
}

// ProductHit is one product of a search, with its rank among the ten most
// popular (0: not among them).
type ProductHit struct {
	ID             int     `json:"id"`
	SKU            string  `json:"sku"`
	Name           string  `json:"name"`
	Price          float64 `json:"price"`
	Rating         float64 `json:"rating"`
	PopularityRank int     `json:"popularity_rank"`
}

// SearchResult is search_products' answer.
type SearchResult struct {
	Category        string       `json:"category"`
	TotalFound      int          `json:"total_found"`
	Products        []ProductHit `json:"products"`
	Top10PopularIDs []int        `json:"top10_popular_ids"`
	ServerType      string       `json:"server_type"`
}

// CartArgs are get_user_cart's arguments (default user: user-00042).
type CartArgs struct {
	UserID string `json:"user_id,omitempty"`
}

// CartItem is one line of a cart as seeded in Redis.
type CartItem struct {
	ProductID int `json:"product_id"`
	Qty       int `json:"qty"`
}

// Cart is a user's cart.
type Cart struct {
	Items          []CartItem `json:"items"`
	ItemCount      int        `json:"item_count"`
	EstimatedTotal float64    `json:"estimated_total"`
}

// CartResult is get_user_cart's answer: the cart and the first five entries
// of the user's order history, as stored.
type CartResult struct {
	UserID        string           `json:"user_id"`
	Cart          Cart             `json:"cart"`
	RecentHistory []map[string]any `json:"recent_history"`
	ServerType    string           `json:"server_type"`
}

// CheckoutItem is one line of a checkout.
type CheckoutItem struct {
	ProductID int `json:"product_id"`
	Quantity  int `json:"quantity"`
}

// CheckoutArgs are checkout's arguments (defaults: user-00042 buying two of
// product 42 and one of 1337).
type CheckoutArgs struct {
	UserID string         `json:"user_id,omitempty"`
	Items  []CheckoutItem `json:"items,omitempty"`
}

// CheckoutResult is checkout's answer.
type CheckoutResult struct {
	OrderID        string  `json:"order_id"`
	UserID         string  `json:"user_id"`
	Total          float64 `json:"total"`
	ItemsCount     int     `json:"items_count"`
	RateLimitCount int64   `json:"rate_limit_count"`
	Status         string  `json:"status"`
	ServerType     string  `json:"server_type"`
}
