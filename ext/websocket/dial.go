package websocket

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcgen/rpcgen/runtime"
)

// DialOptions configures Dial and Dialer. The zero value is usable.
type DialOptions struct {
	// Options configure each connection made: Handler serves the requests the
	// server sends back; MaxMessageSize bounds a frame.
	Options runtime.Options
	// Redial configures reconnection: the retry policy, a hook run on each
	// new connection, a logger.
	Redial runtime.RedialOptions
	// Header is sent with the upgrade request (Authorization, say);
	// HTTPClient makes it (default http.DefaultClient).
	Header     http.Header
	HTTPClient *http.Client
	// PingInterval, PingTimeout, WriteTimeout and MessageTimeout mean what
	// they mean in Options.
	PingInterval, PingTimeout, WriteTimeout, MessageTimeout time.Duration
	// Timeout bounds one dial, the handshake included (default 10 seconds).
	Timeout time.Duration
}

// Dial connects to the JSON-RPC WebSocket endpoint url (ws:// or wss://) and
// returns a runtime.Redialer over it: a Caller that connects again, with
// backoff, when the connection drops. The first connection is made before
// Dial returns.
//
//	client, err := websocket.Dial(ctx, "ws://127.0.0.1:8080/ws", nil)
//	defer client.Close()
//	feed := NewFeedClient(client)
func Dial(ctx context.Context, url string, opts *DialOptions) (*runtime.Redialer, error) {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	r := runtime.NewRedialer(Dialer(url, &o), o.Redial)
	if _, err := r.Connect(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// Dialer returns the DialFunc Dial's Redialer uses: each call makes one
// connection to url.
func Dialer(url string, opts *DialOptions) runtime.DialFunc {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return func(ctx context.Context) (*runtime.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		ws, resp, err := websocket.Dial(dctx, url, &websocket.DialOptions{HTTPHeader: o.Header, HTTPClient: o.HTTPClient})
		if err != nil {
			if resp != nil {
				return nil, fmt.Errorf("websocket: dial %s: %s: %w", url, resp.Status, err)
			}
			return nil, fmt.Errorf("websocket: dial %s: %w", url, err)
		}
		f := newFramer(ws, o.Options.MaxMessageSize, o.WriteTimeout, o.MessageTimeout)
		c := runtime.NewConn(f, o.Options)
		go f.keepAlive(c.Done(), o.PingInterval, o.PingTimeout)
		return c, nil
	}
}

// NewFramer returns a runtime.Framer over an open WebSocket connection, one
// message per text frame, for building a runtime.Conn by hand (tests, a
// connection accepted some other way). maxSize bounds a frame (0:
// runtime.DefaultMaxMessageSize).
func NewFramer(ws *websocket.Conn, maxSize int) runtime.Framer {
	return newFramer(ws, maxSize, 0, 0)
}
