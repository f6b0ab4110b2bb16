package rpchttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime"
)

// Client calls a JSON-RPC 2.0 server over HTTP POST, one HTTP request per call or
// batch. It implements runtime.Caller, so a generated client can call through it.
type Client struct {
	// URL is the endpoint requests are POSTed to.
	URL string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header

	nextID atomic.Int64
}

var _ runtime.Caller = (*Client)(nil)

// NewClient returns a client for the endpoint url.
func NewClient(url string) *Client { return &Client{URL: url} }

// maxResponseSize bounds how much of a response body the client reads.
const maxResponseSize = 64 << 20

// do POSTs body, accepting accept, with the client's headers.
func (c *Client) do(ctx context.Context, body []byte, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	c.setHeaders(ctx, req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	hc := c.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	return hc.Do(req)
}

// post sends body and returns the response body (nil for 204) or a transport error.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, error) {
	resp, err := c.do(ctx, body, "application/json")
	if err != nil {
		return nil, classify(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseSize))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusAccepted:
		return nil, nil
	case resp.StatusCode == http.StatusOK:
		return data, nil
	}
	// Servers put a JSON-RPC error in the body of some failures (such as 413).
	if r, err := runtime.ParseResponse(data); err == nil {
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	err = fmt.Errorf("http status %s", resp.Status)
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// A proxy's answer: the server may or may not have run the call.
		err = fmt.Errorf("%w: %w", runtime.ErrConnectionLost, err)
	}
	return nil, err
}

// setHeaders adds c.Header and the headers of runtime.WithCallHeaders to req.
func (c *Client) setHeaders(ctx context.Context, req *http.Request) {
	for k, v := range c.Header {
		req.Header[k] = v
	}
	runtime.AddCallHeaders(ctx, req.Header)
}

// classify marks a failed exchange for retries (runtime.Retryable): a request
// whose connection could not be made was not sent; one that failed later may
// or may not have reached the server.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return runtime.NotSent(err)
	}
	return fmt.Errorf("%w: %w", runtime.ErrConnectionLost, err)
}

// Transport returns runtime.TransportTCP: HTTP runs over TCP.
func (c *Client) Transport() string { return runtime.TransportTCP }

// Call POSTs a request for method and decodes the result into result (discarded when
// nil). An error response is returned as a *runtime.Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := c.nextID.Add(1)
	// A fresh slice each time: the transport may still read the body after Do returns.
	body, err := runtime.AppendRequest(nil, id, method, params)
	if err != nil {
		return err
	}
	data, err := c.post(ctx, body)
	if err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	r, err := runtime.ParseResponse(data)
	if err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	if err := r.Err(); err != nil {
		return err
	}
	if r.ID != runtime.Int64ID(id) {
		return fmt.Errorf("call %s: response id %s does not match request id %d", method, r.ID, id)
	}
	return r.Decode(method, result)
}

// Notify POSTs a notification for method; the server sends no response body.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	body, err := runtime.AppendRequest(nil, 0, method, params)
	if err != nil {
		return err
	}
	if _, err := c.post(ctx, body); err != nil {
		return fmt.Errorf("notify %s: %w", method, err)
	}
	return nil
}

// Batch POSTs calls as one JSON array and fills in each call's Result or Err. It returns
// an error only when the batch as a whole failed: encoding, transport, a malformed reply,
// or a server that answered the whole batch with one error (such as batches not being
// supported), returned as a *runtime.Error.
func (c *Client) Batch(ctx context.Context, calls []*runtime.BatchCall) error {
	if len(calls) == 0 {
		return nil
	}
	byID := make(map[string]*runtime.BatchCall, len(calls))
	body := []byte{'['}
	for i, call := range calls {
		if i > 0 {
			body = append(body, ',')
		}
		var id int64
		if !call.Notification {
			id = c.nextID.Add(1)
			byID[strconv.FormatInt(id, 10)] = call
		}
		var err error
		if body, err = runtime.AppendRequest(body, id, call.Method, call.Params); err != nil {
			return err
		}
	}
	body = append(body, ']')
	data, err := c.post(ctx, body)
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	if len(byID) == 0 {
		return nil
	}
	// A server that rejects the batch as a whole answers with one error object.
	if whole, err := runtime.ParseResponse(data); err == nil {
		if err := whole.Err(); err != nil {
			return err
		}
	}
	var replies []json.RawMessage
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '[' || json.Unmarshal(data, &replies) != nil {
		return fmt.Errorf("batch: malformed response %.200q", data)
	}
	for _, el := range replies {
		r, err := runtime.ParseResponse(el)
		if err != nil {
			continue
		}
		call := byID[r.ID.String()]
		if call == nil {
			continue
		}
		delete(byID, r.ID.String())
		call.Err = r.Decode(call.Method, call.Result)
	}
	for _, call := range byID {
		call.Err = fmt.Errorf("batch: no response for %s", call.Method)
	}
	return nil
}
