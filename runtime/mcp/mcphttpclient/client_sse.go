package mcphttpclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/internal/httpguard"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
	"github.com/rpcgen/rpcgen/runtime/sse"
)

// sseTransport is the client side of the 2024-11-05 HTTP+SSE transport:
// one long GET whose events carry every server message, and a POST per
// client message to the endpoint the stream named. One goroutine reads the
// stream and queues each message for the call it belongs to; the call's
// own goroutine hands them to its incoming, so they arrive in order and
// never after the call returned.
type sseTransport struct {
	cfg *clientConfig
	u   *url.URL // the stream's URL

	closeCtx    context.Context // ends the GET and aborts POSTs in flight
	closeCancel context.CancelFunc

	mu      sync.Mutex
	cur     *sseStream // the stream, and session, in use
	calls   map[int64]*clientCall
	seq     uint64
	closed  bool
	answers sync.WaitGroup // replies to server requests being sent
	// incoming receives the messages that come while no call waits (see
	// SetIncoming); nil: a request is answered here, a notification dropped.
	incoming func([]byte)
	lost     func() // told when a stream ends before Close (SetSessionLost)
}

// sseStream is one GET of the transport, and the session it is.
type sseStream struct {
	endpoint *url.URL
	done     chan struct{} // closed when the reader ends
	endErr   error         // why the stream ended; set (t.mu held) before done closes
	stop     context.CancelFunc
	lost     bool // the transport's lost function was called for it
}

// DialSSE connects to a server of the 2024-11-05 HTTP+SSE transport, for
// mcpclient.ConnectTransport; opts may be nil (only its HTTPClient and Header
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
// mcpclient.Options.ProtocolVersion (Connect does so).
func DialSSE(ctx context.Context, rawURL string, opts *Options) (mcpclient.Transport, error) {
	var o Options
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
	t := &sseTransport{cfg: cfg, u: u, calls: make(map[int64]*clientCall)}
	// The stream outlives ctx, which bounds only the dial.
	t.closeCtx, t.closeCancel = context.WithCancel(context.WithoutCancel(ctx))
	st, err := t.open(ctx, true)
	if err != nil {
		t.closeCancel()
		cfg.closeIdle()
		return nil, err
	}
	t.cur = st
	return t, nil
}

// open GETs the stream and waits, within ctx, for its endpoint event; the
// stream then runs until Close or its end.
func (t *sseTransport) open(ctx context.Context, handshake bool) (*sseStream, error) {
	u, cfg := t.u, t.cfg
	sctx, stop := context.WithCancel(t.closeCtx)
	stopDial := context.AfterFunc(ctx, stop)
	fail := func(err error) (*sseStream, error) {
		stopDial()
		stop()
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		if t.closeCtx.Err() != nil {
			return nil, runtime.ErrClosed
		}
		return nil, fmt.Errorf("mcphttp: open the HTTP+SSE stream at %s: %w", u, err)
	}
	req := cfg.newRequest(sctx, http.MethodGet, u, nil, 0)
	req.Header[httpwire.HdrAccept] = httpwire.ValEventStream
	resp, err := cfg.do(req, handshake)
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || !clientMediaType(resp.Header.Get(httpwire.HdrContentType), "text/event-stream") {
		body, _ := readClientBody(resp, clientMaxError)
		resp.Body.Close()
		return fail(fmt.Errorf("HTTP %s with Content-Type %q%s", clientStatus(resp), resp.Header.Get(httpwire.HdrContentType), clientErrorSuffix(body)))
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
	st := &sseStream{endpoint: ep, done: make(chan struct{}), stop: stop}
	go t.read(r, resp.Body, st)
	return st, nil
}

// SetSessionLost sets f to hear that the stream, and so the session, ended
// before Close; mcpclient.ConnectTransport sets it.
func (t *sseTransport) SetSessionLost(f func()) {
	t.mu.Lock()
	t.lost = f
	t.mu.Unlock()
}

// RenewSession opens a new stream, a new session, for the next initialize
// (2024-11-05 has no resumption); mcpclient.Client calls it once the old one
// ended. An old stream still open is closed.
func (t *sseTransport) RenewSession(ctx context.Context) error {
	t.mu.Lock()
	old, closed := t.cur, t.closed
	if old != nil {
		old.lost = true // ended on purpose: nothing to report
	}
	t.mu.Unlock()
	if closed {
		return runtime.ErrClosed
	}
	old.stop()
	<-old.done
	st, err := t.open(ctx, false)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		st.stop()
		return runtime.ErrClosed
	}
	t.cur = st
	return nil
}

// stream returns the stream in use, or why none can carry a message.
func (t *sseTransport) stream() (*sseStream, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return nil, runtime.ErrClosed
	case t.cur.endErr != nil:
		return nil, runtime.NotSent(t.cur.endErr)
	}
	return t.cur, nil
}

// clientSameOrigin reports whether a and b have the same scheme, host and
// port.
func clientSameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && httpguard.SameHostPort(a.Host, b.Host, a.Scheme)
}

// read is the only reader of stream st.
func (t *sseTransport) read(r *sse.Reader, body io.Closer, st *sseStream) {
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
	var lost func()
	if t.closed {
		err = runtime.ErrClosed
	} else {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		err = fmt.Errorf("mcphttp: the HTTP+SSE stream ended: %w: %w", ErrSessionExpired, err)
		if !st.lost && st == t.cur {
			st.lost, lost = true, t.lost
		}
	}
	st.endErr = err
	t.mu.Unlock()
	close(st.done)
	if lost != nil {
		lost()
	}
}

// SetIncoming sets f to receive the server's messages that come while no
// call waits for its response (resources/updated, list_changed, a request
// of the server), in order, on the goroutine reading the stream: a request
// must be answered (Send) from another goroutine. mcpclient.ConnectTransport
// calls it, before the handshake, on a transport that has it.
func (t *sseTransport) SetIncoming(f func(msg []byte)) {
	t.mu.Lock()
	t.incoming = f
	t.mu.Unlock()
}

func (t *sseTransport) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// post sends msg to the endpoint of stream st. For a request (id not 0) an
// HTTP error status becomes its error response (reply); otherwise it is an
// error.
func (t *sseTransport) post(ctx context.Context, st *sseStream, id int64, msg []byte) (reply []byte, err error) {
	body := &clientBody{msg: msg}
	defer body.detach()
	req := t.cfg.newRequest(ctx, http.MethodPost, st.endpoint, body, len(msg))
	resp, err := t.cfg.do(req, false)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: post to %s: %w", st.endpoint.Path, clientClassify(ctx, err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		clientDiscard(resp)
		return nil, nil
	}
	errBody, _ := readClientBody(resp, clientMaxError)
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		// The server forgot the session: the stream is no use either.
		st.stop()
		return nil, clientExpired("post to "+st.endpoint.Path, false)
	}
	if clientLostStatus(resp.StatusCode) {
		return nil, fmt.Errorf("mcphttp: post to %s: %w: HTTP %s%s", st.endpoint.Path, runtime.ErrConnectionLost, clientStatus(resp), clientErrorSuffix(errBody))
	}
	if id != 0 {
		if reply, ok := clientWithID(id, errBody); ok {
			return reply, nil
		}
		return clientErrorReply(id, clientStatus(resp)), nil
	}
	return nil, fmt.Errorf("mcphttp: post to %s: HTTP %s%s", st.endpoint.Path, clientStatus(resp), clientErrorSuffix(errBody))
}

// Send implements mcpclient.Transport.
func (t *sseTransport) Send(ctx context.Context, msg []byte) error {
	st, err := t.stream()
	if err != nil {
		return err
	}
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	defer context.AfterFunc(t.closeCtx, stop)()
	_, err = t.post(rctx, st, 0, msg)
	if err != nil && ctx.Err() == nil && t.isClosed() {
		return runtime.ErrClosed
	}
	return err
}

// Close implements mcpclient.Transport: it ends the stream, which ends the
// session; calls still waiting fail with runtime.ErrClosed.
func (t *sseTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	st := t.cur
	t.mu.Unlock()
	t.closeCancel()
	<-st.done
	t.answers.Wait()
	t.cfg.closeIdle()
	return nil
}
