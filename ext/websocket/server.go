package websocket

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/rpchttp"
)

// Options configures NewHandler. The zero value is usable.
type Options struct {
	// Options configure each connection's runtime.Conn (Handler is set from
	// NewHandler's argument): limits, cancellation, logger. MaxMessageSize
	// bounds a frame: a larger one up to 16 times the limit is skipped and
	// answered with an error, a larger one still closes the connection with
	// status 1009.
	Options runtime.Options
	// AllowedOrigins, AllowedHosts and DisableHostCheck check the upgrade
	// request as rpchttp.Options do every request: a browser page of another
	// origin, or a foreign Host on a loopback listener, gets 403.
	AllowedOrigins   []string
	AllowedHosts     []string
	DisableHostCheck bool
	// MaxConns bounds the connections served at once (default 1024; negative
	// for none); an upgrade beyond it gets 503.
	MaxConns int
	// PingInterval is how often the server pings each connection (default
	// DefaultPingInterval; negative: never); a ping unanswered within
	// PingTimeout (default DefaultPingTimeout) closes it.
	PingInterval, PingTimeout time.Duration
	// WriteTimeout bounds each frame's write (default DefaultWriteTimeout;
	// negative: none): a client that stops reading is disconnected.
	WriteTimeout time.Duration
	// MessageTimeout bounds the time a message takes to arrive once its
	// first frame has begun (default DefaultMessageTimeout; negative: none):
	// a client that trickles a message in fragments is disconnected, with "a
	// message took over 30s to arrive" as the connection's Err.
	MessageTimeout time.Duration
	// OnConnect, if set, is called with each new connection before it is
	// read, with the upgrade request.
	OnConnect func(c *runtime.Conn, r *http.Request)
}

// Handler serves JSON-RPC 2.0 to WebSocket clients; NewHandler makes one.
type Handler struct {
	opts   Options
	policy rpchttp.OriginPolicy
	log    *slog.Logger

	mu     sync.Mutex
	conns  map[*runtime.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewHandler returns an http.Handler that upgrades each request to a
// WebSocket connection and serves h on it until either side closes it.
// Mount it where browsers and clients connect (mux.Handle("/ws", ...)); an
// http.Server's Shutdown does not end WebSocket connections, so call the
// Handler's Shutdown too.
func NewHandler(h runtime.Handler, opts *Options) *Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Options.Handler = h
	log := o.Options.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{opts: o, log: log, conns: map[*runtime.Conn]struct{}{},
		policy: rpchttp.OriginPolicy{AllowedOrigins: o.AllowedOrigins, AllowedHosts: o.AllowedHosts, DisableHostCheck: o.DisableHostCheck}}
}

func (h *Handler) maxConns() int {
	if h.opts.MaxConns == 0 {
		return 1024
	}
	return h.opts.MaxConns
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.policy.Check(r); msg != "" {
		refuse(w, http.StatusForbidden, msg)
		return
	}
	h.mu.Lock()
	switch {
	case h.closed:
		h.mu.Unlock()
		refuse(w, http.StatusServiceUnavailable, "Service Unavailable: the server is shutting down")
		return
	case h.maxConns() > 0 && len(h.conns) >= h.maxConns():
		h.mu.Unlock()
		refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("Service Unavailable: the server serves its limit of %d connections", h.maxConns()))
		return
	}
	h.wg.Add(1)
	h.mu.Unlock()
	defer h.wg.Done()
	// The Origin was checked above, by the same rules as the HTTP handlers.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		h.log.Debug("websocket: upgrade failed", "err", err)
		return
	}
	f := newFramer(ws, h.opts.Options.MaxMessageSize, h.opts.WriteTimeout, h.opts.MessageTimeout)
	c := runtime.NewConn(f, h.opts.Options)
	h.mu.Lock()
	h.conns[c] = struct{}{}
	h.mu.Unlock()
	if h.opts.OnConnect != nil {
		h.opts.OnConnect(c, r)
	}
	go f.keepAlive(c.Done(), h.opts.PingInterval, h.opts.PingTimeout)
	<-c.Done()
	if err := c.Err(); err != nil {
		h.log.Info("websocket: connection ended", "remote", r.RemoteAddr, "err", err)
	}
	// The peer may have stopped sending only: answer what it sent, within
	// a grace period, unless the peer is gone (see framer.gone): then the
	// handlers still running are cancelled at once.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	go func() {
		select {
		case <-f.gone:
			cancel()
		case <-ctx.Done():
		}
	}()
	c.Shutdown(ctx)
	cancel()
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}

// refuse answers a request that is not upgraded with status and a JSON-RPC
// error, id null.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(runtime.AppendErrorResponse(nil, runtime.ID{}, runtime.NewError(runtime.CodeInvalidRequest, msg)))
}

// Shutdown refuses new connections, lets each connection finish the requests
// it has read (new ones get an error), then closes them; when ctx ends first
// it closes the rest at once and returns ctx.Err().
func (h *Handler) Shutdown(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, c := range h.stop() {
		wg.Go(func() { c.Shutdown(ctx) })
	}
	wg.Wait()
	h.wg.Wait()
	return ctx.Err()
}

// Close refuses new connections and closes every connection at once.
func (h *Handler) Close() error {
	for _, c := range h.stop() {
		c.Close()
	}
	h.wg.Wait()
	return nil
}

func (h *Handler) stop() []*runtime.Conn {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	conns := make([]*runtime.Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	return conns
}
