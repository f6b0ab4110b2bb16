package mcphttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// sseTransport is the client side of the 2024-11-05 HTTP+SSE transport:
// one long GET whose events carry every server message, and a POST per
// client message to the endpoint the stream named. One goroutine reads the
// stream and queues each message for the call it belongs to; the call's
// own goroutine hands them to its incoming, so they arrive in order and
// never after the call returned.
type sseTransport struct {
	cfg      *clientConfig
	endpoint *url.URL

	closeCtx    context.Context // ends the GET and aborts POSTs in flight
	closeCancel context.CancelFunc
	done        chan struct{} // closed when the reader ends

	mu      sync.Mutex
	calls   map[int64]*clientCall
	seq     uint64
	closed  bool
	endErr  error          // why the stream ended
	answers sync.WaitGroup // replies to server requests being sent
	// incoming receives the messages that come while no call waits (see
	// SetIncoming); nil: a request is answered here, a notification dropped.
	incoming func([]byte)
}

// clientCall is one request waiting for its response on the stream.
type clientCall struct {
	seq   uint64 // registration order: the oldest call gets uncorrelated messages
	mu    sync.Mutex
	queue []clientQueued
	ready chan struct{} // holds a token while queue may be non-empty
}

// clientQueued is one message for a call; response marks its answer.
type clientQueued struct {
	msg      []byte
	response bool
}

func (c *clientCall) push(msg []byte, response bool) {
	c.mu.Lock()
	c.queue = append(c.queue, clientQueued{msg, response})
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

func (c *clientCall) take() []clientQueued {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.queue
	c.queue = nil
	return q
}

// DialSSE connects to a server of the 2024-11-05 HTTP+SSE transport, for
// mcp.ConnectTransport; opts may be nil (only its HTTPClient and Header
// apply). It GETs rawURL as an event stream and waits, within ctx, for the
// endpoint event, whose URL (resolved against rawURL) must have rawURL's
// origin. Every message is then POSTed to that URL, and the server's
// messages arrive on the stream as message events:
//
//   - a response goes to the call that waits for it;
//   - a progress notification goes to the call whose request id is its
//     progress token (as the mcp Client asks), and is dropped when that
//     call has returned;
//   - any other notification, a log message say, and any request of the
//     server's go to the oldest call still waiting, the only one in the
//     usual sequential use; with no call waiting a notification is dropped
//     and a request answered here (ping with an empty result, anything else
//     with Method not found).
//
// A call whose context ends sends notifications/cancelled. The transport
// ends with the stream; Close ends the stream. The transport speaks the
// session-based protocol only: connect with a legacy
// mcp.ClientOptions.ProtocolVersion (Connect does so).
func DialSSE(ctx context.Context, rawURL string, opts *ClientOptions) (mcp.ClientTransport, error) {
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	t, err := clientDialSSE(ctx, rawURL, newClientConfig(&o))
	if err != nil {
		return nil, err
	}
	return t, nil
}

func clientDialSSE(ctx context.Context, rawURL string, cfg *clientConfig) (*sseTransport, error) {
	u, err := parseClientURL(rawURL)
	if err != nil {
		return nil, err
	}
	t := &sseTransport{cfg: cfg, calls: make(map[int64]*clientCall), done: make(chan struct{})}
	// The stream outlives ctx, which bounds only the dial.
	t.closeCtx, t.closeCancel = context.WithCancel(context.WithoutCancel(ctx))
	stopDial := context.AfterFunc(ctx, t.closeCancel)
	fail := func(err error) (*sseTransport, error) {
		stopDial()
		t.closeCancel()
		cfg.closeIdle()
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("mcphttp: open the HTTP+SSE stream at %s: %w", rawURL, err)
	}
	req := cfg.newRequest(t.closeCtx, http.MethodGet, u, nil, 0)
	req.Header[hdrAccept] = valEventStream
	resp, err := cfg.client.Do(req)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || !clientMediaType(resp.Header.Get(hdrContentType), "text/event-stream") {
		body, _ := readClientBody(resp, clientMaxError)
		resp.Body.Close()
		return fail(fmt.Errorf("HTTP %s with Content-Type %q%s", clientStatus(resp), resp.Header.Get(hdrContentType), clientErrorSuffix(body)))
	}
	r := sse.NewReaderSize(resp.Body, clientMaxReply)
	var ev sse.Event
	for ev.Type != "endpoint" {
		if ev, err = r.Next(); err != nil {
			resp.Body.Close()
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fail(fmt.Errorf("no endpoint event: %w", err))
		}
	}
	ep, err := u.Parse(strings.TrimSpace(ev.Data))
	if err == nil && !clientSameOrigin(u, ep) {
		err = fmt.Errorf("the endpoint %q is not on the stream's origin", ev.Data)
	}
	if err != nil {
		resp.Body.Close()
		return fail(err)
	}
	if !stopDial() {
		resp.Body.Close()
		return fail(ctx.Err())
	}
	t.endpoint = ep
	go t.read(r, resp.Body)
	return t, nil
}

// clientSameOrigin reports whether a and b have the same scheme, host and
// port.
func clientSameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && sameHostPort(a.Host, b.Host, a.Scheme)
}

// read is the only reader of the stream.
func (t *sseTransport) read(r *sse.Reader, body io.Closer) {
	var err error
	for {
		var ev sse.Event
		if ev, err = r.Next(); err != nil {
			break
		}
		if ev.Data == "" || (ev.Type != "" && ev.Type != "message") {
			continue
		}
		t.route([]byte(ev.Data))
	}
	body.Close()
	t.mu.Lock()
	if t.closed {
		err = runtime.ErrClosed
	} else {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		err = fmt.Errorf("mcphttp: the HTTP+SSE stream ended: %w", err)
	}
	t.endErr = err
	t.mu.Unlock()
	close(t.done)
}

// SetIncoming sets f to receive the server's messages that come while no
// call waits for its response (resources/updated, list_changed, a request
// of the server), in order, on the goroutine reading the stream: a request
// must be answered (Send) from another goroutine. mcp.ConnectTransport
// calls it, before the handshake, on a transport that has it.
func (t *sseTransport) SetIncoming(f func(msg []byte)) {
	t.mu.Lock()
	t.incoming = f
	t.mu.Unlock()
}

// route queues a server message for the call it belongs to, or hands it to
// the incoming function when no call waits.
func (t *sseTransport) route(msg []byte) {
	if f := t.routeCall(msg); f != nil {
		f(msg)
	}
}

// routeCall queues msg for its call; it returns where msg goes instead, or
// nil.
func (t *sseTransport) routeCall(msg []byte) func([]byte) {
	var env envelope
	if !env.scan(msg) {
		t.cfg.logger.Debug("mcphttp: dropped an event that is not a JSON object")
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case env.isResponse():
		if id, ok := clientParseID(env.id); ok {
			if c := t.calls[id]; c != nil {
				c.push(msg, true)
				return nil
			}
		}
		t.cfg.logger.Debug("mcphttp: dropped a response to no waiting call", "id", string(env.id))
	case env.method == nil:
		t.cfg.logger.Debug("mcphttp: dropped a message that is neither request, response nor notification")
	case env.id == nil && jsonStringIs(env.method, "notifications/progress"):
		if id, ok := clientParseID(member(env.params, "progressToken")); ok {
			if c := t.calls[id]; c != nil {
				c.push(msg, false)
			}
		}
	default:
		if c := t.oldest(); c != nil {
			c.push(msg, false)
			return nil
		}
		if t.incoming != nil && !t.closed {
			return t.incoming
		}
		if env.id != nil && !t.closed {
			t.answers.Add(1)
			go t.answer(env.id, jsonStringIs(env.method, "ping"))
		}
	}
	return nil
}

// oldest returns the call waiting longest, or nil; t.mu must be held.
func (t *sseTransport) oldest() *clientCall {
	var o *clientCall
	for _, c := range t.calls {
		if o == nil || c.seq < o.seq {
			o = c
		}
	}
	return o
}

// answer replies to a server request that arrived with no call waiting.
func (t *sseTransport) answer(id []byte, ping bool) {
	defer t.answers.Done()
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	if ping {
		b = append(b, `,"result":{}}`...)
	} else {
		b = append(b, `,"error":{"code":-32601,"message":"Method not found"}}`...)
	}
	ctx, stop := context.WithTimeout(t.closeCtx, clientNoticeTimeout)
	defer stop()
	if _, err := t.post(ctx, 0, b); err != nil {
		t.cfg.logger.Debug("mcphttp: answer a server request", "err", err)
	}
}

// register adds a waiting call for request id.
func (t *sseTransport) register(id int64) (*clientCall, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return nil, runtime.ErrClosed
	case t.endErr != nil:
		return nil, t.endErr
	}
	t.seq++
	c := &clientCall{seq: t.seq, ready: make(chan struct{}, 1)}
	t.calls[id] = c
	return c, nil
}

func (t *sseTransport) unregister(id int64) {
	t.mu.Lock()
	delete(t.calls, id)
	t.mu.Unlock()
}

// RoundTrip implements mcp.ClientTransport.
func (t *sseTransport) RoundTrip(ctx context.Context, id int64, msg []byte, incoming func([]byte)) ([]byte, error) {
	c, err := t.register(id)
	if err != nil {
		return nil, err
	}
	defer t.unregister(id)
	rctx, stop := context.WithCancel(ctx)
	stopClose := context.AfterFunc(t.closeCtx, stop)
	reply, err := t.post(rctx, id, msg)
	stopClose()
	stop()
	if reply != nil {
		return reply, nil
	}
	if err == nil {
		if reply, err = t.wait(ctx, c, incoming); reply != nil {
			return reply, nil
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		if !mcp.NoCancel(ctx) {
			cctx, stop := context.WithTimeout(t.closeCtx, clientNoticeTimeout)
			if _, err := t.post(cctx, 0, clientCancelMessage(id, cerr)); err != nil {
				t.cfg.logger.Debug("mcphttp: send notifications/cancelled", "id", id, "err", err)
			}
			stop()
		}
		return nil, cerr
	}
	if t.isClosed() {
		return nil, runtime.ErrClosed
	}
	return nil, err
}

// wait hands call c's messages to incoming until its response arrives,
// which it returns.
func (t *sseTransport) wait(ctx context.Context, c *clientCall, incoming func([]byte)) ([]byte, error) {
	for {
		select {
		case <-c.ready:
			if reply := clientDeliver(c.take(), incoming); reply != nil {
				return reply, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.done:
			if reply := clientDeliver(c.take(), incoming); reply != nil {
				return reply, nil
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			return nil, t.endErr
		}
	}
}

// clientDeliver passes queued messages to incoming up to the response, which it
// returns.
func clientDeliver(q []clientQueued, incoming func([]byte)) []byte {
	for _, m := range q {
		if m.response {
			return m.msg
		}
		incoming(m.msg)
	}
	return nil
}

func (t *sseTransport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// post sends msg to the endpoint. For a request (id not 0) an HTTP error
// status becomes its error response (reply); otherwise it is an error.
func (t *sseTransport) post(ctx context.Context, id int64, msg []byte) (reply []byte, err error) {
	body := &clientBody{msg: msg}
	defer body.detach()
	req := t.cfg.newRequest(ctx, http.MethodPost, t.endpoint, body, len(msg))
	resp, err := t.cfg.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: post to %s: %w", t.endpoint.Path, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		clientDiscard(resp)
		return nil, nil
	}
	errBody, _ := readClientBody(resp, clientMaxError)
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, clientExpired("post to " + t.endpoint.Path)
	}
	if id != 0 {
		if reply, ok := clientWithID(id, errBody); ok {
			return reply, nil
		}
		return clientErrorReply(id, clientStatus(resp)), nil
	}
	return nil, fmt.Errorf("mcphttp: post to %s: HTTP %s%s", t.endpoint.Path, clientStatus(resp), clientErrorSuffix(errBody))
}

// Send implements mcp.ClientTransport.
func (t *sseTransport) Send(ctx context.Context, msg []byte) error {
	t.mu.Lock()
	closed, endErr := t.closed, t.endErr
	t.mu.Unlock()
	switch {
	case closed:
		return runtime.ErrClosed
	case endErr != nil:
		return endErr
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(t.closeCtx, stop)()
	_, err := t.post(rctx, 0, msg)
	if err != nil && ctx.Err() == nil && t.isClosed() {
		return runtime.ErrClosed
	}
	return err
}

// Close implements mcp.ClientTransport: it ends the stream, which ends the
// session; calls still waiting fail with runtime.ErrClosed.
func (t *sseTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	t.closeCancel()
	<-t.done
	t.answers.Wait()
	t.cfg.closeIdle()
	return nil
}
