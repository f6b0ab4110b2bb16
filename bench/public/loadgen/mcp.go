// Package loadgen drives the public benchmark's load: the k6 script of TM
// Dev Lab's MCP benchmark v2 (benchmark/benchmark.js) in Go, request for
// request. Each virtual user loops: for each of the three tools a whole MCP
// session (initialize, notifications/initialized, tools/call, DELETE), then
// one more session for tools/list, then a 50 ms pause; the number of users
// ramps up, holds and ramps down as the script's stages do, and only what
// happens after the warm-up is measured. It also measures the single-caller
// rates of tools/call and tools/list in one session (as IBM context-forge's
// benchmark reports them).
package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Tool is one tools/call the script makes, with the check it applies to the
// answer's first text block.
type Tool struct {
	Name  string
	Args  map[string]any
	Check func(text string) error
}

// Tools are the script's three calls for the user userID
// (user-00001 to user-00050 for the 50 users).
func Tools(userID string) []Tool {
	return []Tool{
		{Name: "search_products",
			Args:  map[string]any{"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10},
			Check: checkSearch},
		{Name: "get_user_cart", Args: map[string]any{"user_id": userID}, Check: checkCart},
		{Name: "checkout", Args: map[string]any{"user_id": userID,
			"items": []map[string]any{{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}}},
			Check: checkCheckout},
	}
}

func checkSearch(text string) error {
	var d struct {
		TotalFound int   `json:"total_found"`
		Products   []any `json:"products"`
		Top10      []int `json:"top10_popular_ids"`
	}
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		return err
	}
	if d.TotalFound != 2251 || len(d.Products) != 10 || len(d.Top10) != 10 {
		return fmt.Errorf("search_products: total_found %d, %d products, %d popular ids; want 2251, 10, 10",
			d.TotalFound, len(d.Products), len(d.Top10))
	}
	return nil
}

func checkCart(text string) error {
	var d struct {
		UserID string `json:"user_id"`
		Cart   struct {
			Items []any `json:"items"`
		} `json:"cart"`
		History []any `json:"recent_history"`
	}
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		return err
	}
	if d.UserID == "" || len(d.Cart.Items) < 1 || len(d.History) != 5 {
		return fmt.Errorf("get_user_cart: user %q, %d items, %d history entries; want a user, 1 or more, 5",
			d.UserID, len(d.Cart.Items), len(d.History))
	}
	return nil
}

func checkCheckout(text string) error {
	var d struct {
		Status     string  `json:"status"`
		Total      float64 `json:"total"`
		ItemsCount int     `json:"items_count"`
	}
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		return err
	}
	if d.Status != "confirmed" || d.Total <= 0 || d.ItemsCount != 2 {
		return fmt.Errorf("checkout: status %q, total %v, %d items; want confirmed, > 0, 2", d.Status, d.Total, d.ItemsCount)
	}
	return nil
}

// Client speaks MCP over Streamable HTTP as the script does: JSON bodies,
// Accept of both JSON and event streams, the session id echoed.
type Client struct {
	URL  string
	HTTP *http.Client
}

// Response is a JSON-RPC response.
type Response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// ErrHTTP marks a request answered with an HTTP error status.
var ErrHTTP = errors.New("HTTP error status")

// post sends body with the session id sid and returns the session id the
// answer names (sid when it names none) and the response, nil for an
// answer with no body (202 to a notification).
func (c *Client) post(ctx context.Context, sid string, body []byte) (string, *Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return sid, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return sid, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return sid, nil, err
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		sid = s
	}
	if resp.StatusCode >= 400 {
		return sid, nil, fmt.Errorf("%w: %s: %.200s", ErrHTTP, resp.Status, data)
	}
	r, err := parseBody(data)
	return sid, r, err
}

// parseBody reads a JSON body or the first JSON data line of an event
// stream, as the script's parseBody does.
func parseBody(data []byte) (*Response, error) {
	text := bytes.TrimSpace(data)
	if len(text) == 0 {
		return nil, nil
	}
	if text[0] != '{' {
		for line := range strings.SplitSeq(string(text), "\n") {
			if p, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok && strings.HasPrefix(strings.TrimSpace(p), "{") {
				text = []byte(strings.TrimSpace(p))
				break
			}
		}
	}
	var r Response
	if err := json.Unmarshal(text, &r); err != nil {
		return nil, fmt.Errorf("answer: %w: %.200s", err, text)
	}
	return &r, nil
}

var (
	initBody     = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"k6-bench","version":"1.0"}}}`)
	notifyBody   = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	listBody     = []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	errNoSession = errors.New("no session")
)

// Initialize opens a session (sid is "" for a stateless server) and sends
// notifications/initialized.
func (c *Client) Initialize(ctx context.Context) (sid string, err error) {
	sid, r, err := c.post(ctx, "", initBody)
	if err == nil && (r == nil || r.Result == nil) {
		err = fmt.Errorf("initialize: %w: %+v", errNoSession, r)
	}
	if err != nil {
		return sid, err
	}
	_, _, err = c.post(ctx, sid, notifyBody)
	return sid, err
}

// Close ends the session sid (DELETE); a stateless server's "" is not sent.
func (c *Client) Close(ctx context.Context, sid string) error {
	if sid == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.URL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return fmt.Errorf("%w: DELETE: %s", ErrHTTP, resp.Status)
	}
	return nil
}

// CallTool calls a tool in session sid and returns the text of its first
// content block; an error answer or a result with isError is an error.
func (c *Client) CallTool(ctx context.Context, sid, name string, args any) (string, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		return "", err
	}
	_, r, err := c.post(ctx, sid, body)
	if err != nil {
		return "", err
	}
	if r == nil || r.Error != nil || r.Result == nil {
		return "", fmt.Errorf("tools/call %s: no result: %+v", name, r)
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return "", fmt.Errorf("tools/call %s: %w", name, err)
	}
	if len(res.Content) == 0 || res.Content[0].Type != "text" {
		return "", fmt.Errorf("tools/call %s: no text block: %s", name, r.Result)
	}
	if res.IsError {
		return "", fmt.Errorf("tools/call %s: tool error: %s", name, res.Content[0].Text)
	}
	return res.Content[0].Text, nil
}

// ListTools lists the tools in session sid and returns their names.
func (c *Client) ListTools(ctx context.Context, sid string) ([]string, error) {
	_, r, err := c.post(ctx, sid, listBody)
	if err != nil {
		return nil, err
	}
	if r == nil || r.Error != nil || r.Result == nil {
		return nil, fmt.Errorf("tools/list: no result: %+v", r)
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	if res.Tools == nil {
		return nil, errors.New("tools/list: no tools member")
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}
