package floorsrv_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/bench/public/servers/floorsrv"
	"github.com/rpcgen/rpcgen/bench/public/servers/rpcgensrv"
	"github.com/rpcgen/rpcgen/bench/public/shop"
)

// stub answers fixed results and records the arguments it was called with.
type stub struct {
	args []any
	// fail makes Checkout fail with failWith (or "rate limited").
	fail     bool
	failWith string
}

func (s *stub) SearchProducts(_ context.Context, a shop.SearchArgs) (shop.SearchResult, error) {
	s.args = append(s.args, a)
	return shop.SearchResult{Category: a.Category, TotalFound: 2, ServerType: "x <&> \"q\"",
		Products:        []shop.ProductHit{{ID: 1, SKU: "S1", Name: "One\n", Price: 1.5, Rating: 4, PopularityRank: 1}},
		Top10PopularIDs: []int{1, 2}}, nil
}

func (s *stub) GetUserCart(_ context.Context, a shop.CartArgs) (shop.CartResult, error) {
	s.args = append(s.args, a)
	return shop.CartResult{UserID: a.UserID, Cart: shop.Cart{Items: []shop.CartItem{{ProductID: 8, Qty: 2}}, ItemCount: 1, EstimatedTotal: 16.02},
		RecentHistory: []map[string]any{{"order_id": "ORD-1", "qty": 2.0, "price": 0.14}}, ServerType: "x"}, nil
}

func (s *stub) Checkout(_ context.Context, a shop.CheckoutArgs) (shop.CheckoutResult, error) {
	s.args = append(s.args, a)
	if s.fail {
		if s.failWith != "" {
			return shop.CheckoutResult{}, errors.New(s.failWith)
		}
		return shop.CheckoutResult{}, errors.New("rate limited")
	}
	return shop.CheckoutResult{OrderID: "ORD-1", UserID: a.UserID, Total: 24.63, ItemsCount: len(a.Items), RateLimitCount: 1,
		Status: "confirmed", ServerType: "x"}, nil
}

// answer is one HTTP exchange.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func post(t *testing.T, srv *httptest.Server, sid, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	return do(t, srv, req)
}

func do(t *testing.T, srv *httptest.Server, req *http.Request) answer {
	t.Helper()
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// response is a JSON-RPC answer decoded as generic values.
type response struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Result  any    `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode(t *testing.T, a answer) response {
	t.Helper()
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("answer %d %v: %s", a.status, a.header, a.body)
	}
	var r response
	d := json.NewDecoder(bytes.NewReader(a.body))
	d.UseNumber()
	if err := d.Decode(&r); err != nil || r.JSONRPC != "2.0" {
		t.Fatalf("answer %s: %v", a.body, err)
	}
	return r
}

// text is a tools/call result's one text block, decoded as JSON when it is.
func text(t *testing.T, r response) (any, bool) {
	t.Helper()
	res, ok := r.Result.(map[string]any)
	content, _ := res["content"].([]any)
	if !ok || len(content) != 1 {
		t.Fatalf("tools/call result %v", r.Result)
	}
	block := content[0].(map[string]any)
	s, _ := block["text"].(string)
	if block["type"] != "text" {
		t.Fatalf("tools/call content %v", content)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s, res["isError"] == true
	}
	return v, res["isError"] == true
}

var calls = []string{
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_products","arguments":{"category":"Electronics","min_price":50.0,"max_price":500.0,"limit":10}}}`,
	`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"get_user_cart","arguments":{"user_id":"user-00001"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"checkout","arguments":{"user_id":"user-00007","items":[{"product_id":42,"quantity":2},{"product_id":1337,"quantity":1}]}}}`,
}

// TestSameAsRpcgen: the floor lists the same tools as rpcgen's server at
// protocol version 2024-11-05, passes the same arguments to the Shop and
// answers each tools/call with the same content.
func TestSameAsRpcgen(t *testing.T) {
	var floorShop, rpcgenShop stub
	fh, _ := floorsrv.Handler(&floorShop)
	rh, release := rpcgensrv.Handler(&rpcgenShop)
	defer release()
	floor, rpcgen := httptest.NewServer(fh), httptest.NewServer(rh)
	defer floor.Close()
	defer rpcgen.Close()

	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"k6-bench","version":"1.0"}}}`
	fi, ri := post(t, floor, "", initialize), post(t, rpcgen, "", initialize)
	if fi.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("the floor named a session: %v", fi.header)
	}
	sid := ri.header.Get("Mcp-Session-Id")
	init := decode(t, fi).Result.(map[string]any)
	if init["protocolVersion"] != "2024-11-05" || init["capabilities"].(map[string]any)["tools"] == nil ||
		init["serverInfo"].(map[string]any)["name"] != "BenchmarkFloorServer" {
		t.Errorf("initialize: %v", init)
	}
	const notify = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	if a := post(t, floor, "", notify); a.status != http.StatusAccepted || len(a.body) != 0 {
		t.Errorf("notifications/initialized: %d %q", a.status, a.body)
	}
	post(t, rpcgen, sid, notify)

	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	fl, rl := decode(t, post(t, floor, "", list)), decode(t, post(t, rpcgen, sid, list))
	if !reflect.DeepEqual(fl, rl) {
		t.Errorf("tools/list:\nfloor  %v\nrpcgen %v", fl.Result, rl.Result)
	}
	for _, call := range calls {
		fr, rr := decode(t, post(t, floor, "", call)), decode(t, post(t, rpcgen, sid, call))
		ft, ferr := text(t, fr)
		rt, rerr := text(t, rr)
		if fr.ID != rr.ID || ferr || rerr || !reflect.DeepEqual(ft, rt) {
			t.Errorf("%s:\nfloor  %s\nrpcgen %s", call, fr.Result, rr.Result)
		}
	}
	if !reflect.DeepEqual(floorShop.args, rpcgenShop.args) || len(floorShop.args) != len(calls) {
		t.Errorf("arguments:\nfloor  %+v\nrpcgen %+v", floorShop.args, rpcgenShop.args)
	}
}

// TestErrors: what the floor does not serve gets a clear answer.
func TestErrors(t *testing.T) {
	impl := &stub{fail: true}
	h, _ := floorsrv.Handler(impl)
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, c := range []struct {
		body string
		id   any
		code int
		msg  string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, json.Number("1"), -32601, "method not found: resources/list"},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"nope"}}`, "a", -32602, `unknown tool: "nope"`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"checkout","arguments":{"items":"x"}}}`, json.Number("1"), -32600, "invalid request: json: cannot unmarshal string"},
		{`{"jsonrpc":"2.0","id":1,`, nil, -32700, "parse error"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, -32600, "one JSON-RPC request object per POST, not a batch"},
		{`{"id":1,"method":"ping"}`, json.Number("1"), -32600, `jsonrpc must be "2.0"`},
	} {
		r := decode(t, post(t, srv, "", c.body))
		if r.Error == nil || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.msg) || r.ID != c.id || r.Result != nil {
			t.Errorf("%s: id %v, error %+v; want id %v, %d %q", c.body, r.ID, r.Error, c.id, c.code, c.msg)
		}
	}

	// A tool's failure is an error result.
	r := decode(t, post(t, srv, "", calls[2]))
	if got, isError := text(t, r); !isError || got != "rate limited" {
		t.Errorf("failed checkout: %v", r.Result)
	}

	get, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	if a := do(t, srv, get); a.status != http.StatusMethodNotAllowed || a.header.Get("Allow") != "POST, DELETE" {
		t.Errorf("GET: %d %v", a.status, a.header)
	}
	del, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	if a := do(t, srv, del); a.status != http.StatusOK {
		t.Errorf("DELETE: %d", a.status)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
	if a := post(t, srv, "", big); a.status != http.StatusBadRequest {
		t.Errorf("a body over 1 MiB: %d", a.status)
	}
}

// TestStringEscapes: a tool's failure, whatever bytes its message holds,
// comes back as a JSON string that decodes to the message (each invalid
// UTF-8 byte replaced, as encoding/json does).
func TestStringEscapes(t *testing.T) {
	impl := &stub{fail: true}
	h, _ := floorsrv.Handler(impl)
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, msg := range []string{"plain", `q"b\s/`, "ctl\x00\x01\x1f\t\r\n\x7f", "é ✓ 𝄞", "bad\xffutf8\xc3", "<&>\u2028"} {
		impl.failWith = msg
		a := post(t, srv, "", calls[2])
		if !json.Valid(a.body) {
			t.Fatalf("%q: not JSON: %s", msg, a.body)
		}
		var want string
		b, _ := json.Marshal(msg)
		_ = json.Unmarshal(b, &want)
		if got, isError := text(t, decode(t, a)); !isError || got != want {
			t.Errorf("%q: text %q, want %q", msg, got, want)
		}
	}
}
