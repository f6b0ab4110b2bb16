// Package seed fills Redis with the data of TM Dev Lab's MCP benchmark v2,
// as its infra/redis/seed.py does: 10,000 carts (bench:cart:user-NNNNN,
// hashes), 1,000 order histories of 20 entries (bench:history:user-NNNNN,
// lists), the popularity of 100,000 products (bench:popular, a sorted set)
// and 100 rate-limit counters at 0 (bench:ratelimit:user-NNNNN).
package seed

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/redis/go-redis/v9"
)

type cartItem struct {
	ProductID int `json:"product_id"`
	Qty       int `json:"qty"`
}

type historyEntry struct {
	OrderID   string  `json:"order_id"`
	ProductID int     `json:"product_id"`
	Qty       int     `json:"qty"`
	Price     float64 `json:"price"`
	TS        int64   `json:"ts"`
}

// Seed flushes the current database and writes the benchmark's data.
func Seed(ctx context.Context, rdb *redis.Client) error {
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		return fmt.Errorf("seed: FLUSHDB: %w", err)
	}
	pipe := rdb.Pipeline()
	flush := func(what string) error {
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("seed: %s: %w", what, err)
		}
		return nil
	}
	for n := 1; n <= 10_000; n++ {
		items := []cartItem{{(n*7)%100_000 + 1, 1 + n%3}, {(n*13)%100_000 + 1, 1 + n%2}}
		if n%3 == 0 {
			items = append(items, cartItem{(n*17)%100_000 + 1, 1})
		}
		total := 0.0
		for _, it := range items {
			total += float64(it.Qty) * float64((it.ProductID*100)%9_999+1) / 100
		}
		js, _ := json.Marshal(items)
		user := fmt.Sprintf("user-%05d", n)
		pipe.HSet(ctx, "bench:cart:"+user, "user_id", user, "items", string(js), "created", "1740000000",
			"expires", "1740086400", "total", fmt.Sprintf("%.2f", total))
		if n%1000 == 0 {
			if err := flush("carts"); err != nil {
				return err
			}
		}
	}
	for n := 1; n <= 1_000; n++ {
		key := fmt.Sprintf("bench:history:user-%05d", n)
		entries := make([]any, 20)
		for j := 1; j <= 20; j++ {
			js, _ := json.Marshal(historyEntry{
				OrderID: fmt.Sprintf("ORD-%05d-%02d", n, j), ProductID: (n*j*7)%100_000 + 1, Qty: 1 + j%3,
				Price: math.Round(float64((n*j*13)%9_999+1)) / 100, TS: 1_740_000_000 + int64(n)*86_400 + int64(j)*3_600,
			})
			entries[j-1] = string(js)
		}
		pipe.RPush(ctx, key, entries...)
		if n%100 == 0 {
			if err := flush("histories"); err != nil {
				return err
			}
		}
	}
	for i := 1; i <= 100_000; i++ {
		pipe.ZAdd(ctx, "bench:popular", redis.Z{Score: float64(i * 7 % 10_000), Member: fmt.Sprintf("product:%d", i)})
		if i%5000 == 0 {
			if err := flush("popular"); err != nil {
				return err
			}
		}
	}
	for n := 1; n <= 100; n++ {
		pipe.Set(ctx, fmt.Sprintf("bench:ratelimit:user-%05d", n), 0, 0)
	}
	return flush("counters")
}
