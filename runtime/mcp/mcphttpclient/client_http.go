package mcphttpclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
)

// The request path builds each HTTP request by hand around the caller's
// message (no copy of it, no URL parsing, shared header value slices for the
// fixed values) and reads JSON replies into one buffer sized by
// Content-Length, so a call allocates little beyond what net/http itself
// needs.

// clientAcceptBoth is the Accept header value of a POST; net/http never
// modifies a request's header slices.
var clientAcceptBoth = []string{"application/json, text/event-stream"}

// clientBody is a request body over the caller's message that can be
// detached: net/http may read a body after the response arrived (when the
// server answers before reading it all), but the message belongs to the
// caller once RoundTrip returns.
type clientBody struct {
	mu    sync.Mutex
	msg   []byte
	first clientBodyReader // the request's Body; GetBody makes more
}

var errClientBodyDetached = errors.New("mcphttp: request abandoned")

// clientBodyReader reads one copy of a clientBody.
type clientBodyReader struct {
	b   *clientBody
	off int
}

func (r *clientBodyReader) Read(p []byte) (int, error) {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if r.b.msg == nil {
		return 0, errClientBodyDetached
	}
	if r.off >= len(r.b.msg) {
		return 0, io.EOF
	}
	n := copy(p, r.b.msg[r.off:])
	r.off += n
	return n, nil
}

func (r *clientBodyReader) Close() error { return nil }

// getBody returns another reader of b, for net/http's retries.
func (b *clientBody) getBody() (io.ReadCloser, error) { return &clientBodyReader{b: b}, nil }

// detach stops every reader of b from reading the message again.
func (b *clientBody) detach() {
	b.mu.Lock()
	b.msg = nil
	b.mu.Unlock()
}

// newRequest builds a request to u with the configured headers; body may be
// nil.
func (cfg *clientConfig) newRequest(ctx context.Context, method string, u *url.URL, body *clientBody, n int) *http.Request {
	h := make(http.Header, len(cfg.header)+6)
	for k, v := range cfg.header {
		h[k] = v
	}
	runtime.AddCallHeaders(ctx, h) // client middleware's
	req := &http.Request{
		Method:     method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       u.Host,
	}
	if body != nil {
		body.first.b = body
		req.Body = &body.first
		req.GetBody = body.getBody
		req.ContentLength = int64(n)
		h[httpwire.HdrContentType] = httpwire.ValJSON
	}
	return req.WithContext(ctx)
}

// clientMaxReply bounds a JSON reply or one event of a stream; clientMaxError
// an error body.
const (
	clientMaxReply = 64 << 20
	clientMaxError = 1 << 20
)

var clientBufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readClientBody reads a response body of at most limit bytes.
func readClientBody(resp *http.Response, limit int64) ([]byte, error) {
	if n := resp.ContentLength; n >= 0 && n <= limit {
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	buf := clientBufPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 64<<10 {
			buf.Reset()
			clientBufPool.Put(buf)
		}
	}()
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, errors.New("mcphttp: the response body is too large")
	}
	return bytes.Clone(buf.Bytes()), nil
}

// clientDiscard drains a little of a body, so its connection can be reused,
// and closes it.
func clientDiscard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
}

// clientMediaType reports whether the Content-Type ct names the media type mt
// (parameters ignored, case-insensitive).
func clientMediaType(ct, mt string) bool {
	ct = strings.TrimSpace(ct)
	if len(ct) < len(mt) || !strings.EqualFold(ct[:len(mt)], mt) {
		return false
	}
	rest := ct[len(mt):]
	return rest == "" || rest[0] == ';' || rest[0] == ' ' || rest[0] == '\t'
}
