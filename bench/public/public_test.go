// The public benchmark's servers, checked: each answers the three tools
// with the right data from Redis and the API service, lists them, and
// carries a short load of the script's sessions without an error.
package public_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rpcgen/rpcgen/bench/public/apiservice"
	"github.com/rpcgen/rpcgen/bench/public/loadgen"
	"github.com/rpcgen/rpcgen/bench/public/seed"
	"github.com/rpcgen/rpcgen/bench/public/servers/floorsrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/gosdksrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/mcpgosrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/rpcgensrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/serve"
	"github.com/rpcgen/rpcgen/bench/public/shop"
	"github.com/rpcgen/rpcgen/ext/redis/redistest"
)

var servers = []struct {
	name    string
	handler serve.Handler
}{
	{"rpcgen", rpcgensrv.Handler},
	{"mcpgo", mcpgosrv.Handler},
	{"gosdk", gosdksrv.Handler},
	{"floor", floorsrv.Handler},
}

func TestServers(t *testing.T) {
	ctx := context.Background()
	rs := redistest.Start(t)
	api := httptest.NewServer(apiservice.NewCatalog().Handler())
	t.Cleanup(api.Close)
	rdb := goredis.NewClient(&goredis.Options{Addr: rs.Addr()})
	t.Cleanup(func() { rdb.Close() })

	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			if err := seed.Seed(ctx, rdb); err != nil {
				t.Fatal(err)
			}
			b, err := shop.NewBackend(api.URL, rs.URL(), s.name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			h, release := s.handler(b)
			srv := httptest.NewServer(h)
			t.Cleanup(func() {
				srv.Close()
				if err := release(); err != nil {
					t.Error(err)
				}
			})
			c := &loadgen.Client{URL: srv.URL, HTTP: srv.Client()}
			sid, err := c.Initialize(ctx)
			if err != nil {
				t.Fatal(err)
			}
			names, err := c.ListTools(ctx, sid)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(names)
			if want := []string{"checkout", "get_user_cart", "search_products"}; !slices.Equal(names, want) {
				t.Errorf("tools/list: %v, want %v", names, want)
			}
			checkAnswers(t, ctx, c, sid, rdb, s.name)
			if err := c.Close(ctx, sid); err != nil {
				t.Error(err)
			}

			// The script's sessions, 4 users, 3 iterations each.
			r, err := loadgen.Run(ctx, loadgen.Config{URL: srv.URL, VUs: 4, Iterations: 3})
			if err != nil {
				t.Fatal(err)
			}
			if r.Errors != 0 || r.HTTPFailed != 0 {
				t.Errorf("load: %d errors, %d failed requests; first: %s", r.Errors, r.HTTPFailed, r.FirstError)
			}
			if want := int64(4 * 3 * 4 * 2); r.Requests != want {
				t.Errorf("load: %d MCP requests, want %d", r.Requests, want)
			}
			// Each session is initialize, the notification, a call and,
			// when the server named a session, a DELETE.
			perSession := int64(3)
			if sid != "" {
				perSession = 4
			}
			if want := 4 * 3 * 4 * perSession; r.HTTPRequests != want {
				t.Errorf("load: %d HTTP requests, want %d", r.HTTPRequests, want)
			}
			if r.AllRequests != r.Requests {
				t.Errorf("load: %d requests in all, %d measured; want the same (every iteration is measured)", r.AllRequests, r.Requests)
			}
			if want := int64(4 * 3 * 3); r.Calls != want || len(r.Latencies) != int(want) {
				t.Errorf("load: %d calls and %d latencies, want %d", r.Calls, len(r.Latencies), want)
			}
		})
	}
}

func call[T any](t *testing.T, ctx context.Context, c *loadgen.Client, sid, tool string, args any) T {
	t.Helper()
	text, err := c.CallTool(ctx, sid, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, text)
	}
	return v
}

// checkAnswers checks each tool's answer against the data the seed and the
// catalog's formulas give.
func checkAnswers(t *testing.T, ctx context.Context, c *loadgen.Client, sid string, rdb *goredis.Client, name string) {
	s := call[shop.SearchResult](t, ctx, c, sid, "search_products",
		map[string]any{"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10})
	// Electronics is every 20th product from id 1; the cheapest at 50 or
	// more is index 4900 (id 4901, 1 + 4900/100), then +0.20 each.
	if s.Category != "Electronics" || s.TotalFound != 2251 || len(s.Products) != 10 || s.ServerType != name {
		t.Fatalf("search_products: %+v", s)
	}
	for i, p := range s.Products {
		id := 4901 + 20*i
		want := shop.ProductHit{ID: id, SKU: "SKU-00" + itoa(id), Name: "Alpha Electronics Item " + itoa(id),
			Price: 50 + 0.2*float64(i), Rating: 1 + float64((id-1)%40)/10}
		if i%5 != 0 { // brand is index%50: 4900+20i is 0 mod 50 only when i is a multiple of 5
			want.Name = p.Name
		}
		if p.ID != want.ID || p.SKU != want.SKU || p.Name != want.Name || !near(p.Price, want.Price) || !near(p.Rating, want.Rating) {
			t.Errorf("search_products product %d: %+v, want %+v", i, p, want)
		}
	}
	if len(s.Top10PopularIDs) != 10 {
		t.Fatalf("top10_popular_ids: %v", s.Top10PopularIDs)
	}
	for _, id := range s.Top10PopularIDs {
		// Scores are id*7 mod 10000, ten products each: the top ten all have 9999.
		if score := rdb.ZScore(ctx, "bench:popular", "product:"+itoa(id)).Val(); score != 9999 {
			t.Errorf("popular id %d has score %v, want 9999", id, score)
		}
	}

	cart := call[shop.CartResult](t, ctx, c, sid, "get_user_cart", map[string]any{"user_id": "user-00001"})
	// user 1: products 8 (qty 2) and 14 (qty 2), total 2*8.01 + 2*14.01.
	if cart.UserID != "user-00001" || cart.Cart.ItemCount != 2 ||
		!slices.Equal(cart.Cart.Items, []shop.CartItem{{ProductID: 8, Qty: 2}, {ProductID: 14, Qty: 2}}) ||
		!near(cart.Cart.EstimatedTotal, 44.04) || len(cart.RecentHistory) != 5 || cart.ServerType != name {
		t.Errorf("get_user_cart: %+v", cart)
	} else if cart.RecentHistory[0]["order_id"] != "ORD-00001-01" || cart.RecentHistory[4]["order_id"] != "ORD-00001-05" {
		t.Errorf("get_user_cart history: %v", cart.RecentHistory)
	}

	co := call[shop.CheckoutResult](t, ctx, c, sid, "checkout", map[string]any{"user_id": "user-00007",
		"items": []map[string]any{{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}}})
	// 2*1.41 + 14.36 = 17.18, tax 1.46, shipping 5.99.
	if co.Status != "confirmed" || !near(co.Total, 24.63) || co.ItemsCount != 2 || co.RateLimitCount != 1 ||
		co.OrderID != "ORD-user00007-2" || co.UserID != "user-00007" || co.ServerType != name {
		t.Errorf("checkout: %+v", co)
	}
	if n := rdb.LLen(ctx, "bench:history:user-00007").Val(); n != 21 {
		t.Errorf("history of user-00007 has %d entries after a checkout, want 21", n)
	}
	if score := rdb.ZScore(ctx, "bench:popular", "product:42").Val(); score != float64(42*7%10000+1) {
		t.Errorf("product:42 scores %v after a checkout, want %d", score, 42*7%10000+1)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
