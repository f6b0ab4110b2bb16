// Package apiservice is the product catalog API of TM Dev Lab's MCP
// benchmark v2, reproduced: 100,000 products built deterministically at
// start (20 categories, 50 brands, prices 1.00 to 1000.00), served as
//
//	GET  /products/search?category=&min_price=&max_price=&limit=
//	GET  /products/{id}
//	POST /cart/calculate
//	GET  /health
//
// with the same answers as the original's Go service, so a tool's result
// (total_found 2251 for Electronics between 50 and 500) is the same.
package apiservice

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Product is one catalog entry.
type Product struct {
	ID          uint32   `json:"id"`
	SKU         string   `json:"sku"`
	Name        string   `json:"name"`
	Category    string   `json:"category"`
	Brand       string   `json:"brand"`
	Price       float64  `json:"price"`
	Stock       int32    `json:"stock"`
	Rating      float32  `json:"rating"`
	Tags        []string `json:"tags"`
	Weight      float64  `json:"weight"`
	Description string   `json:"description"`
}

// Size is the number of products.
const Size = 100_000

var (
	categories = []string{"Electronics", "Books", "Clothing", "Sports", "Home", "Garden", "Toys", "Food",
		"Beauty", "Automotive", "Music", "Movies", "Games", "Office", "Health", "Pets", "Travel", "Tools",
		"Jewelry", "Baby"}
	brands = []string{"Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
		"Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "Sigma", "Tau", "Upsilon", "Phi", "Chi", "Psi",
		"Omega", "Apex", "Nexus", "Vertex", "Zenith", "Nadir", "Flux", "Forge", "Craft", "Build", "Make",
		"Create", "Design", "Style", "Form", "Shape", "Mold", "Cast", "Weld", "Fuse", "Bond", "Link", "Chain",
		"Wire", "Mesh", "Weave", "Knit"}
	tags = []string{"sale", "new", "featured", "bestseller", "clearance", "limited", "popular", "exclusive"}
)

func round2(f float64) float64 { return math.Round(f*100) / 100 }

// Catalog is the built catalog.
type Catalog struct {
	products   []Product
	byCategory map[string][]int32
}

// NewCatalog builds the catalog with the original's formulas.
func NewCatalog() *Catalog {
	c := &Catalog{products: make([]Product, Size), byCategory: make(map[string][]int32, len(categories))}
	for i := range Size {
		cat, brand := categories[i%20], brands[i%50]
		t := make([]string, 2+i%3)
		for j := range t {
			t[j] = tags[(i+j)%8]
		}
		c.products[i] = Product{
			ID: uint32(i + 1), SKU: fmt.Sprintf("SKU-%06d", i+1), Name: fmt.Sprintf("%s %s Item %d", brand, cat, i+1),
			Category: cat, Brand: brand, Price: 1 + float64(i%99900)/100, Stock: int32(i % 501),
			Rating: 1 + float32(i%40)/10, Tags: t, Weight: round2(float64(1+i%100) * 0.1),
			Description: fmt.Sprintf("Quality %s by %s. SKU %06d.", cat, brand, i+1),
		}
		c.byCategory[cat] = append(c.byCategory[cat], int32(i))
	}
	return c
}

// Handler serves the catalog.
func (c *Catalog) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]string{"status": "ok", "server_type": "api-service"})
	})
	mux.HandleFunc("GET /products/search", c.search)
	mux.HandleFunc("GET /products/{id}", c.product)
	mux.HandleFunc("POST /cart/calculate", c.cart)
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

type searchAnswer struct {
	Category   string    `json:"category"`
	TotalFound int       `json:"total_found"`
	Products   []Product `json:"products"`
}

func (c *Catalog) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cat := q.Get("category")
	if cat == "" {
		cat = "Electronics"
	}
	lo, _ := strconv.ParseFloat(q.Get("min_price"), 64)
	hi, _ := strconv.ParseFloat(q.Get("max_price"), 64)
	if hi == 0 {
		hi = math.MaxFloat64
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > 1000 {
		limit = 10
	}
	var match []Product
	for _, i := range c.byCategory[cat] {
		if p := c.products[i]; p.Price >= lo && p.Price <= hi {
			match = append(match, p)
		}
	}
	sort.SliceStable(match, func(i, j int) bool { return match[i].Price < match[j].Price })
	total := len(match)
	if limit < len(match) {
		match = match[:limit]
	}
	if match == nil {
		match = []Product{}
	}
	writeJSON(w, searchAnswer{Category: cat, TotalFound: total, Products: match})
}

func (c *Catalog) product(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/products/"))
	if err != nil || id < 1 || id > Size {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, c.products[id-1])
}

type cartRequest struct {
	UserID string `json:"user_id"`
	Items  []struct {
		ProductID int `json:"product_id"`
		Quantity  int `json:"quantity"`
	} `json:"items"`
}

type cartAnswer struct {
	OrderID    string  `json:"order_id"`
	UserID     string  `json:"user_id"`
	Subtotal   float64 `json:"subtotal"`
	Tax        float64 `json:"tax"`
	Shipping   float64 `json:"shipping"`
	Discount   float64 `json:"discount"`
	Total      float64 `json:"total"`
	ItemsCount int     `json:"items_count"`
}

// cart prices a cart: 8.5% tax, 5.99 shipping, and from 100 on a 10%
// discount and free shipping.
func (c *Catalog) cart(w http.ResponseWriter, r *http.Request) {
	var req cartRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	sub := 0.0
	for _, it := range req.Items {
		if it.ProductID >= 1 && it.ProductID <= Size {
			sub += c.products[it.ProductID-1].Price * float64(it.Quantity)
		}
	}
	sub = round2(sub)
	tax, ship, disc := round2(sub*0.085), 5.99, 0.0
	if sub >= 100 {
		disc, ship = round2(sub*0.10), 0
	}
	writeJSON(w, cartAnswer{
		OrderID: fmt.Sprintf("ORD-%s-%d", strings.ReplaceAll(req.UserID, "-", ""), len(req.Items)),
		UserID:  req.UserID, Subtotal: sub, Tax: tax, Shipping: ship, Discount: disc,
		Total: round2(sub + tax + ship - disc), ItemsCount: len(req.Items),
	})
}
