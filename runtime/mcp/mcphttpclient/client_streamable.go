package mcphttpclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// Timing of the Streamable HTTP client.
const (
	// clientDefaultRetry is the wait before resuming a stream whose server
	// named no retry interval; clientMaxRetry caps the server's value.
	clientDefaultRetry = time.Second
	clientMaxRetry     = time.Minute
	// clientMaxResumes bounds the consecutive reconnections that bring no
	// new event before a call gives up on its stream.
	clientMaxResumes = 5
	// clientNoticeTimeout bounds a notifications/cancelled POST and the
	// DELETE that ends a session.
	clientNoticeTimeout = 5 * time.Second
)

// streamable is the Streamable HTTP client transport of both eras. A
// request whose params._meta names a protocol version is a 2026-07-28
// request: stateless, with the request metadata headers, cancelled by
// abandoning its response. Any other request belongs to the session-based
// era: once an initialize succeeded, every message carries the session id
// and negotiated version, a dropped event stream is resumed, and
// cancellation is a notifications/cancelled POST.
type streamable struct {
	cfg    *clientConfig
	u      *url.URL
	urlErr error

	closeCtx    context.Context // ended by Close, aborting calls in flight
	closeCancel context.CancelFunc

	mu      sync.Mutex
	params  map[string][]httpwire.ParamHeader // x-mcp-header parameters by tool
	sess    clientSession
	closed  bool
	expired bool
	refused bool   // initialize got an answer that was not JSON-RPC
	lost    func() // told once the server ended the session (SetSessionLost)

	// The standalone stream of a legacy session (client_standalone.go).
	incoming     func([]byte)       // receives its messages; nil: not opened
	listening    uint64             // the session gen whose stream was opened
	listenCancel context.CancelFunc // ends the reading of that stream
	listenWG     sync.WaitGroup     // the goroutines reading the streams
}

// clientSession is the legacy session state, copied out per request.
type clientSession struct {
	gen     uint64   // counts the sessions of the transport, from 1
	legacy  bool     // an initialize succeeded through the transport
	id      []string // the Mcp-Session-Id header value; nil when none
	version []string // the MCP-Protocol-Version header value
	// listenUp opens once the session's standalone stream is open, or has
	// been refused or given up; nil when none is opened.
	listenUp *standaloneGate
}

// NewStreamableTransport returns the Streamable HTTP transport for the MCP
// endpoint at rawURL, for mcpclient.ConnectTransport; opts may be nil (only its
// HTTPClient, Header and NoStandaloneStream apply). It speaks both eras, as
// each request asks:
//
//   - A request whose params._meta carries the protocol version (2026-07-28)
//     is POSTed with MCP-Protocol-Version, Mcp-Method and, for tools/call,
//     prompts/get and resources/read, Mcp-Name (base64-encoded when not
//     plain visible ASCII), and a tools/call with the Mcp-Param-* headers
//     its tool's x-mcp-header annotations ask for (learnt from tools/list,
//     which the transport sends itself when the server reports missing
//     headers for a tool it has not seen). Ending the call's context
//     abandons the response, which is how that revision cancels.
//   - After an initialize succeeded, every message carries the session's
//     Mcp-Session-Id and the negotiated MCP-Protocol-Version. An event
//     stream that ends before the response is resumed by a GET with
//     Last-Event-ID after the server's retry interval, so no message is lost
//     or repeated; a call whose context ends POSTs notifications/cancelled;
//     Close DELETEs the session; a 404 means the session is gone
//     (ErrSessionExpired), and the mcpclient.Client starts a new one
//     (SetSessionLost, RenewSession).
//
// An HTTP error status whose body is a JSON-RPC error is returned as that
// error's response, but for 502, 503 and 504, which are errors wrapping
// runtime.ErrConnectionLost (the request may or may not have reached the
// server), as are broken connections; a refused one wraps
// runtime.ErrNotSent (see mcpclient.Options.Retry). Any other answer that
// is not JSON-RPC becomes a -32600 error response naming the HTTP status,
// so that the Client's era probe can fall back. A session-based server's optional standalone GET stream is
// opened only for a Client that hears the messages not related to any
// request (see streamable.SetIncoming).
func NewStreamableTransport(rawURL string, opts *Options) mcpclient.Transport {
	var o Options
	if opts != nil {
		o = *opts
	}
	return newStreamable(rawURL, newClientConfig(&o))
}

func newStreamable(rawURL string, cfg *clientConfig) *streamable {
	t := &streamable{cfg: cfg}
	t.u, t.urlErr = parseClientURL(rawURL)
	t.closeCtx, t.closeCancel = context.WithCancel(context.Background())
	return t
}

// session returns the session state for a new request, or why none can be
// made.
func (t *streamable) session() (clientSession, error) {
	if t.urlErr != nil {
		return clientSession{}, t.urlErr
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return clientSession{}, runtime.ErrClosed
	case t.expired:
		return clientSession{}, clientExpired("the session", false)
	}
	return t.sess, nil
}

// clientExpired is the error for a request the server answered with 404 in
// a legacy session, or could not be sent for it: it was not sent (the
// server does not run a request of a session it does not know), or, when
// inFlight, was running when the session ended.
func clientExpired(what string, inFlight bool) error {
	err := fmt.Errorf("mcphttp: %s: %w (HTTP 404)", what, ErrSessionExpired)
	if inFlight {
		return fmt.Errorf("%w: %w", runtime.ErrConnectionLost, err)
	}
	return runtime.NotSent(err)
}

// expire records that the server ended session s, if it is still the
// transport's, and says so to the client.
func (t *streamable) expire(s clientSession) {
	t.mu.Lock()
	if t.expired || t.sess.gen != s.gen {
		t.mu.Unlock()
		return
	}
	t.expired = true
	lost := t.lost
	t.mu.Unlock()
	if lost != nil {
		lost()
	}
}

// current reports whether s is the transport's session, still alive.
func (t *streamable) current(s clientSession) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.closed && !t.expired && t.sess.gen == s.gen
}

// SetSessionLost sets f to hear, once per session, that the server ended
// the legacy session (HTTP 404); mcpclient.ConnectTransport sets it.
func (t *streamable) SetSessionLost(f func()) {
	t.mu.Lock()
	t.lost = f
	t.mu.Unlock()
}

// RenewSession forgets the legacy session, so that the next initialize
// starts a new one; mcpclient.Client calls it once the server ended the session.
func (t *streamable) RenewSession(context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return runtime.ErrClosed
	}
	// A session the server did not end is one a renewal started and could
	// not finish (its initialize succeeded, a later step failed): end it,
	// or it would live on the server, its standalone stream hearing what
	// the next one hears.
	if old := t.sess; old.legacy && old.id != nil && !t.expired {
		go t.deleteSession(old)
	}
	if t.listenCancel != nil {
		t.listenCancel()
		t.listenCancel = nil
	}
	// A new gen: a late 404 to a request of the old session (a resume, a
	// call in flight) must not end the one about to start.
	t.sess = clientSession{gen: t.sess.gen + 1}
	t.expired = false
	return nil
}

// deleteSession ends session s on the server (DELETE), as far as it
// answers within clientNoticeTimeout.
func (t *streamable) deleteSession(s clientSession) {
	ctx, stop := context.WithTimeout(context.Background(), clientNoticeTimeout)
	defer stop()
	req := t.cfg.newRequest(ctx, http.MethodDelete, t.u, nil, 0)
	clientSetHeaders(req.Header, &clientMessage{}, s)
	if resp, err := t.cfg.do(req, false); err == nil {
		clientDiscard(resp)
	}
}

func (t *streamable) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// initRefused reports whether initialize got an answer that was not
// JSON-RPC: the endpoint is no Streamable HTTP endpoint.
func (t *streamable) initRefused() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}

// bind returns ctx, also ended by Close; call both functions when done.
func (t *streamable) bind(ctx context.Context) (context.Context, context.CancelFunc, func() bool) {
	rctx, cancel := context.WithCancel(ctx)
	return rctx, cancel, context.AfterFunc(t.closeCtx, cancel)
}

// clientSetHeaders sets the protocol headers of message m.
func clientSetHeaders(h http.Header, m *clientMessage, s clientSession) {
	if m.version != "" {
		h[httpwire.HdrProtocolVersion] = httpwire.Value(m.version)
		if m.method != "" {
			h[httpwire.HdrMethod] = httpwire.Value(m.method)
		}
		if m.hasName {
			h[httpwire.HdrName] = []string{httpwire.EncodeHeaderValue(m.name)}
		}
		return
	}
	if s.legacy {
		if s.id != nil {
			h[httpwire.HdrSessionID] = s.id
		}
		h[httpwire.HdrProtocolVersion] = s.version
	}
}

func (t *streamable) setRefused() {
	t.mu.Lock()
	t.refused = true
	t.mu.Unlock()
}

// initialized starts the legacy session when reply is a successful
// InitializeResult.
func (t *streamable) initialized(reply []byte, sessionID string) {
	var env httpwire.Envelope
	if !env.Scan(reply) || env.Result == nil {
		return
	}
	version, _ := httpwire.String(httpwire.Member(env.Result, "protocolVersion"))
	if version == "" {
		return
	}
	s := clientSession{legacy: true, version: httpwire.Value(version)}
	if sessionID != "" {
		s.id = []string{sessionID}
	}
	t.mu.Lock()
	s.gen = t.sess.gen + 1
	t.sess = s
	t.expired = false
	lctx := t.startListenLocked()
	s = t.sess
	t.mu.Unlock()
	if lctx != nil {
		go t.listen(lctx, s)
	}
}

// cancel tells a legacy session's server that the caller gave up on
// request id.
func (t *streamable) cancel(id int64, reason error) {
	s, err := t.session()
	if err != nil {
		return
	}
	ctx, stop := context.WithTimeout(t.closeCtx, clientNoticeTimeout)
	defer stop()
	m := clientMessage{method: mcp.NotificationCancelled}
	if err := t.post(ctx, clientCancelMessage(id, reason), &m, s); err != nil {
		t.cfg.logger.Debug("mcphttp: send "+mcp.NotificationCancelled, "id", id, "err", err)
	}
}

// Send implements mcpclient.Transport: it POSTs a notification or a
// response, which the server accepts with 202.
func (t *streamable) Send(ctx context.Context, msg []byte) error {
	s, err := t.session()
	if err != nil {
		return err
	}
	m := scanClientMessage(msg)
	rctx, cancel, stop := t.bind(ctx)
	defer cancel()
	defer stop()
	err = t.post(rctx, msg, &m, s)
	if err != nil && ctx.Err() == nil && t.isClosed() {
		return runtime.ErrClosed
	}
	return err
}

// post sends a message that gets no response.
func (t *streamable) post(ctx context.Context, msg []byte, m *clientMessage, s clientSession) error {
	what := m.method
	if what == "" {
		what = "response"
	}
	body := &clientBody{msg: msg}
	defer body.detach()
	req := t.cfg.newRequest(ctx, http.MethodPost, t.u, body, len(msg))
	req.Header[httpwire.HdrAccept] = clientAcceptBoth
	clientSetHeaders(req.Header, m, s)
	resp, err := t.cfg.do(req, false)
	if err != nil {
		return fmt.Errorf("mcphttp: send %s: %w", what, clientClassify(ctx, err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		clientDiscard(resp)
		return nil
	}
	if resp.StatusCode == http.StatusNotFound && m.version == "" && s.id != nil {
		clientDiscard(resp)
		t.expire(s)
		return clientExpired("send "+what, false)
	}
	errBody, _ := readClientBody(resp, clientMaxError)
	resp.Body.Close()
	return fmt.Errorf("mcphttp: send %s: HTTP %s%s", what, clientStatus(resp), clientErrorSuffix(errBody))
}

// Close implements mcpclient.Transport: it aborts the calls in flight and
// ends a legacy session with DELETE (a server that answers 405 keeps it
// until it expires).
func (t *streamable) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	s, expired := t.sess, t.expired
	t.mu.Unlock()
	t.closeCancel()
	t.listenWG.Wait()
	defer t.cfg.closeIdle()
	if s.id == nil || expired {
		return nil
	}
	ctx, stop := context.WithTimeout(context.Background(), clientNoticeTimeout)
	defer stop()
	req := t.cfg.newRequest(ctx, http.MethodDelete, t.u, nil, 0)
	clientSetHeaders(req.Header, &clientMessage{}, s)
	// A challenge is not answered: closing never starts a login (the
	// Authorizer's own refresh, which needs no user, still happens).
	resp, err := t.cfg.doUnchallenged(req)
	if err != nil {
		return fmt.Errorf("mcphttp: end the session: %w", err)
	}
	clientDiscard(resp)
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299, code == http.StatusNotFound, code == http.StatusMethodNotAllowed:
		return nil
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Errorf("mcphttp: end the session: HTTP %s: the credentials are no longer valid, and closing does not ask for new ones (the server ends the session when it idles)", clientStatus(resp))
	}
	return fmt.Errorf("mcphttp: end the session: HTTP %s", clientStatus(resp))
}

// AnswersEveryRequest reports that every request gets an answer (each POST
// has an HTTP response): a dual-era mcpclient.Client waits for the answer to its
// server/discover probe, within Connect's context, and no timeout makes it
// take a slow server for a legacy one (see mcpclient.Options.ProbeTimeout).
func (t *streamable) AnswersEveryRequest() bool { return true }

// SessionID returns the legacy session's Mcp-Session-Id, or "" when there is
// none (mcpclient.Request.SessionID reads it).
func (t *streamable) SessionID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.sess.id) == 0 {
		return ""
	}
	return t.sess.id[0]
}
