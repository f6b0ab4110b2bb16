package shop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Backend implements Shop against the API service and Redis, doing the
// same I/O as the original's Go server: each tool's independent requests
// run concurrently.
type Backend struct {
	// API is the API service's base URL (http://127.0.0.1:8100).
	API string
	// HTTP calls the API service.
	HTTP *http.Client
	// Redis holds the seeded carts, histories, popularity and counters.
	Redis *redis.Client
	// ServerType is what the answers' server_type says.
	ServerType string
}

var _ Shop = (*Backend)(nil)

// NewBackend connects to the API service at api and to Redis at redisURL
// (redis://host:port), with the original's HTTP connection pool (100 idle
// connections per host).
func NewBackend(api, redisURL, serverType string) (*Backend, error) {
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("redis URL %q: %w", redisURL, err)
	}
	return &Backend{
		API: strings.TrimSuffix(api, "/"),
		HTTP: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			MaxIdleConns: 200, MaxIdleConnsPerHost: 100, IdleConnTimeout: 90 * time.Second,
		}},
		Redis:      redis.NewClient(opt),
		ServerType: serverType,
	}, nil
}

// Close closes the Redis client and the idle HTTP connections.
func (b *Backend) Close() error {
	b.HTTP.CloseIdleConnections()
	return b.Redis.Close()
}

func (b *Backend) do(req *http.Request, out any) error {
	resp, err := b.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("api service: %s %s: %s", req.Method, req.URL.Path, resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}

func (b *Backend) get(ctx context.Context, path string, q url.Values, out any) error {
	u := b.API + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	return b.do(req, out)
}

func (b *Backend) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.API+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return b.do(req, out)
}

// apiSearch is the part of the API service's search answer the tool reads.
type apiSearch struct {
	TotalFound int `json:"total_found"`
	Products   []struct {
		ID     int     `json:"id"`
		SKU    string  `json:"sku"`
		Name   string  `json:"name"`
		Price  float64 `json:"price"`
		Rating float64 `json:"rating"`
	} `json:"products"`
}

// SearchProducts asks the API service for the category's products in the
// price range while it reads the ten most popular products from Redis
// (ZREVRANGE bench:popular 0 9), then ranks the hits by popularity.
func (b *Backend) SearchProducts(ctx context.Context, args SearchArgs) (SearchResult, error) {
	if args.Category == "" {
		args.Category = "Electronics"
	}
	if args.MinPrice == 0 {
		args.MinPrice = 50
	}
	if args.MaxPrice == 0 {
		args.MaxPrice = 500
	}
	if args.Limit == 0 {
		args.Limit = 10
	}
	var (
		search     apiSearch
		popular    []string
		searchErr  error
		popularErr error
		wg         sync.WaitGroup
	)
	wg.Go(func() {
		searchErr = b.get(ctx, "/products/search", url.Values{
			"category":  {args.Category},
			"min_price": {strconv.FormatFloat(args.MinPrice, 'f', -1, 64)},
			"max_price": {strconv.FormatFloat(args.MaxPrice, 'f', -1, 64)},
			"limit":     {strconv.Itoa(args.Limit)},
		}, &search)
	})
	// ZREVRANGE as the original sends it (go-redis's ZRevRange is deprecated
	// for ZRANGE ... REV, a different command with the same answer).
	wg.Go(func() { popular, popularErr = b.Redis.Do(ctx, "ZREVRANGE", "bench:popular", 0, 9).StringSlice() })
	wg.Wait()
	if err := errors.Join(searchErr, popularErr); err != nil {
		return SearchResult{}, err
	}
	top := make([]int, 0, len(popular))
	rank := make(map[int]int, len(popular))
	for i, m := range popular {
		if _, idText, ok := strings.Cut(m, ":"); ok {
			if id, err := strconv.Atoi(idText); err == nil {
				top = append(top, id)
				rank[id] = i + 1
			}
		}
	}
	hits := make([]ProductHit, len(search.Products))
	for i, p := range search.Products {
		hits[i] = ProductHit{ID: p.ID, SKU: p.SKU, Name: p.Name, Price: p.Price, Rating: p.Rating, PopularityRank: rank[p.ID]}
	}
	return SearchResult{Category: args.Category, TotalFound: search.TotalFound, Products: hits,
		Top10PopularIDs: top, ServerType: b.ServerType}, nil
}

// GetUserCart reads the user's cart (HGETALL bench:cart:<user>), then at
// once the cart's first product from the API service (fetched, not merged,
// as in the original) and the user's first five orders (LRANGE
// bench:history:<user> 0 4).
func (b *Backend) GetUserCart(ctx context.Context, args CartArgs) (CartResult, error) {
	if args.UserID == "" {
		args.UserID = "user-00042"
	}
	cart, err := b.Redis.HGetAll(ctx, "bench:cart:"+args.UserID).Result()
	if err != nil {
		return CartResult{}, err
	}
	var items []CartItem
	if s, ok := cart["items"]; ok {
		if err := json.Unmarshal([]byte(s), &items); err != nil {
			return CartResult{}, fmt.Errorf("cart of %s: %w", args.UserID, err)
		}
	}
	first := 1
	if len(items) > 0 {
		first = items[0].ProductID
	}
	var (
		history          []string
		prodErr, histErr error
		wg               sync.WaitGroup
	)
	wg.Go(func() { prodErr = b.get(ctx, "/products/"+strconv.Itoa(first), nil, nil) })
	wg.Go(func() { history, histErr = b.Redis.LRange(ctx, "bench:history:"+args.UserID, 0, 4).Result() })
	wg.Wait()
	if err := errors.Join(prodErr, histErr); err != nil {
		return CartResult{}, err
	}
	recent := make([]map[string]any, 0, len(history))
	for _, h := range history {
		var e map[string]any
		if json.Unmarshal([]byte(h), &e) == nil {
			recent = append(recent, e)
		}
	}
	total, _ := strconv.ParseFloat(cart["total"], 64)
	if items == nil {
		items = []CartItem{}
	}
	return CartResult{UserID: args.UserID, Cart: Cart{Items: items, ItemCount: len(items), EstimatedTotal: total},
		RecentHistory: recent, ServerType: b.ServerType}, nil
}

// apiCart is the part of the API service's cart answer the tool reads.
type apiCart struct {
	OrderID string  `json:"order_id"`
	Total   float64 `json:"total"`
}

// Checkout prices the items with the API service (POST /cart/calculate)
// while it counts the user's checkout (INCR bench:ratelimit:user-<n%100>),
// appends the order to their history (RPUSH) and scores the first product's
// popularity (ZINCRBY bench:popular 1 product:<id>).
func (b *Backend) Checkout(ctx context.Context, args CheckoutArgs) (CheckoutResult, error) {
	if args.UserID == "" {
		args.UserID = "user-00042"
	}
	if len(args.Items) == 0 {
		args.Items = []CheckoutItem{{ProductID: 42, Quantity: 2}, {ProductID: 1337, Quantity: 1}}
	}
	userNum := 42
	if i := strings.LastIndexByte(args.UserID, '-'); i >= 0 {
		userNum, _ = strconv.Atoi(args.UserID[i+1:])
	}
	now := time.Now().Unix()
	entry, err := json.Marshal(struct {
		OrderID string         `json:"order_id"`
		Items   []CheckoutItem `json:"items"`
		TS      int64          `json:"ts"`
	}{fmt.Sprintf("ORD-%s-%d", args.UserID, now), args.Items, now})
	if err != nil {
		return CheckoutResult{}, err
	}
	var (
		calc                      apiCart
		count                     int64
		calcErr, incrErr, pushErr error
		zErr                      error
		wg                        sync.WaitGroup
	)
	wg.Go(func() {
		calcErr = b.post(ctx, "/cart/calculate", struct {
			UserID string         `json:"user_id"`
			Items  []CheckoutItem `json:"items"`
		}{args.UserID, args.Items}, &calc)
	})
	wg.Go(func() {
		count, incrErr = b.Redis.Incr(ctx, fmt.Sprintf("bench:ratelimit:user-%05d", userNum%100)).Result()
	})
	wg.Go(func() { pushErr = b.Redis.RPush(ctx, "bench:history:"+args.UserID, entry).Err() })
	wg.Go(func() {
		zErr = b.Redis.ZIncrBy(ctx, "bench:popular", 1, "product:"+strconv.Itoa(args.Items[0].ProductID)).Err()
	})
	wg.Wait()
	if err := errors.Join(calcErr, incrErr, pushErr, zErr); err != nil {
		return CheckoutResult{}, err
	}
	if calc.OrderID == "" {
		calc.OrderID = fmt.Sprintf("ORD-%s-%d", args.UserID, now)
	}
	return CheckoutResult{OrderID: calc.OrderID, UserID: args.UserID, Total: calc.Total, ItemsCount: len(args.Items),
		RateLimitCount: count, Status: "confirmed", ServerType: b.ServerType}, nil
}
