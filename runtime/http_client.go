package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

// HTTPClient calls a JSON-RPC 2.0 server over HTTP POST, one request per call.
type HTTPClient struct {
	// URL is the endpoint requests are POSTed to.
	URL string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Header is added to every request (for example Authorization).
	Header http.Header

	nextID atomic.Int64
}

// NewHTTPClient returns a client for the endpoint url.
func NewHTTPClient(url string) *HTTPClient { return &HTTPClient{URL: url} }

// maxResponseSize bounds how much of a response body the client reads.
const maxResponseSize = 64 << 20

// post sends body and returns the response body (nil for 204) or a transport error.
func (c *HTTPClient) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := c.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
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
	var m message
	if len(data) > 0 && firstByte(data) == '{' && m.parse(data) && m.errObj != nil {
		return nil, decodeError(m.errObj)
	}
	return nil, fmt.Errorf("http status %s", resp.Status)
}

// encodeRequest returns a fresh copy of the request, since the transport may still
// read the body after Do returns.
func encodeRequest(id int64, method string, params any) ([]byte, error) {
	e := getEncoder()
	defer e.free()
	if err := e.request(id, method, params); err != nil {
		return nil, fmt.Errorf("encode params of %s: %w", method, err)
	}
	return bytes.Clone(e.buf.Bytes()), nil
}

// Call POSTs a request for method and decodes the result into result (discarded when
// nil). An error response is returned as a *Error.
func (c *HTTPClient) Call(ctx context.Context, method string, params, result any) error {
	id := c.nextID.Add(1)
	body, err := encodeRequest(id, method, params)
	if err != nil {
		return err
	}
	data, err := c.post(ctx, body)
	if err != nil {
		return fmt.Errorf("call %s: %w", method, err)
	}
	var m message
	if !json.Valid(data) || !m.parse(data) || !m.isResponse() {
		return fmt.Errorf("call %s: malformed response %.200q", method, data)
	}
	if m.errObj == nil && string(m.id) != strconv.FormatInt(id, 10) {
		return fmt.Errorf("call %s: response id %s does not match request id %d", method, m.id, id)
	}
	r := response{result: m.result, errObj: m.errObj}
	return r.decode(method, result)
}

// Notify POSTs a notification for method; the server sends no response body.
func (c *HTTPClient) Notify(ctx context.Context, method string, params any) error {
	body, err := encodeRequest(0, method, params)
	if err != nil {
		return err
	}
	if _, err := c.post(ctx, body); err != nil {
		return fmt.Errorf("notify %s: %w", method, err)
	}
	return nil
}

// Batch POSTs calls as one JSON array and fills in each call's Result or Err. It returns
// an error only when the batch as a whole failed.
func (c *HTTPClient) Batch(ctx context.Context, calls []*BatchCall) error {
	if len(calls) == 0 {
		return nil
	}
	e := getEncoder()
	defer e.free()
	byID := make(map[string]*BatchCall, len(calls))
	e.buf.WriteByte('[')
	for i, call := range calls {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		var id int64
		if !call.Notification {
			id = c.nextID.Add(1)
			byID[strconv.FormatInt(id, 10)] = call
		}
		if err := e.request(id, call.Method, call.Params); err != nil {
			return fmt.Errorf("encode params of %s: %w", call.Method, err)
		}
	}
	e.buf.WriteByte(']')
	data, err := c.post(ctx, bytes.Clone(e.buf.Bytes()))
	if err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	if len(byID) == 0 {
		return nil
	}
	// A server that rejects the batch as a whole answers with one error object.
	if !json.Valid(data) {
		return fmt.Errorf("batch: malformed response %.200q", data)
	}
	var whole message
	if firstByte(data) == '{' && whole.parse(data) && whole.errObj != nil {
		return decodeError(whole.errObj)
	}
	cur, ok := openArray(data)
	if !ok {
		return fmt.Errorf("batch: malformed response %.200q", data)
	}
	for {
		el, ok := cur.nextElem()
		if !ok {
			break
		}
		var m message
		if !m.parse(el) || !m.isResponse() {
			continue
		}
		call := byID[string(m.id)]
		if call == nil {
			continue
		}
		delete(byID, string(m.id))
		r := response{result: m.result, errObj: m.errObj}
		call.Err = r.decode(call.Method, call.Result)
	}
	for _, call := range byID {
		call.Err = fmt.Errorf("batch: no response for %s", call.Method)
	}
	return nil
}
