package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// DialFunc makes a new connection to a server; Redialer calls it whenever it
// has none that is alive. Package runtime/rpcnet dials TCP and Unix sockets,
// package ext/websocket WebSockets.
type DialFunc func(ctx context.Context) (*Conn, error)

// RedialOptions configures a Redialer.
type RedialOptions struct {
	// Retry is the policy for calls and for dialling: a dial that fails, and a
	// call on a connection already gone, are not sent, so they are retried for
	// every method; a call lost with its connection only for methods declared
	// idempotent (CallIdempotent). Its Attempts bound the tries of one call,
	// dials included.
	Retry RetryPolicy
	// OnConnect, if set, runs after each successful dial, before the connection
	// carries calls: to subscribe again, say. An error closes the connection and
	// counts as a failed dial.
	OnConnect func(ctx context.Context, c *Conn) error
	// Logger receives a line for each connection lost and made again (Info) and
	// each failed dial (Warn); nil discards them.
	Logger *slog.Logger
}

// Redialer is a Caller that keeps a connection to one server: it dials when it
// has none (at first use, and after the connection drops), one dial at a time,
// with backoff between failures. A call in flight when the connection drops
// fails with an error wrapping ErrConnectionLost, unless it was made through
// CallIdempotent, which tries it again on a new connection. Its methods are safe
// for concurrent use.
type Redialer struct {
	dial DialFunc
	opts RedialOptions
	log  *slog.Logger

	mu      sync.Mutex
	conn    *Conn
	dialing chan struct{} // closed when the dial under way ends; nil when none is
	closed  bool
	lost    bool // a connection was made before and has ended
}

// NewRedialer returns a Redialer that makes its connections with dial. It
// dials nothing until the first call (or Connect).
func NewRedialer(dial DialFunc, opts RedialOptions) *Redialer {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Redialer{dial: dial, opts: opts, log: log}
}

// Transport returns the network transport of the live connection, or "" while
// there is none.
func (r *Redialer) Transport() string {
	r.mu.Lock()
	c := r.conn
	r.mu.Unlock()
	if c == nil {
		return ""
	}
	return c.Transport()
}

// errRedialerClosed is what calls get after Close.
var errRedialerClosed = fmt.Errorf("redialer: %w", ErrClosed)

// Connect returns the live connection, dialling once if there is none; it does
// not retry. Use it to fail early on a wrong address, or to reach the *Conn.
func (r *Redialer) Connect(ctx context.Context) (*Conn, error) {
	for {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, errRedialerClosed
		}
		if c := r.conn; c != nil {
			select {
			case <-c.Done():
				r.conn, r.lost = nil, true
				c.Close()
				r.log.Info("jsonrpc: connection lost; dialling again at the next call", "err", c.Err())
			default:
				r.mu.Unlock()
				return c, nil
			}
		}
		if wait := r.dialing; wait != nil {
			r.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		r.dialing = done
		r.mu.Unlock()

		c, err := r.dialOnce(ctx)
		r.mu.Lock()
		r.dialing = nil
		close(done)
		if err == nil && r.closed {
			c.Close()
			err = errRedialerClosed
		} else if err == nil {
			r.conn = c
			if r.lost {
				r.log.Info("jsonrpc: connected again")
			}
		}
		r.mu.Unlock()
		return c, err
	}
}

func (r *Redialer) dialOnce(ctx context.Context) (*Conn, error) {
	c, err := r.dial(ctx)
	if err == nil && r.opts.OnConnect != nil {
		if err = r.opts.OnConnect(ctx, c); err != nil {
			c.Close()
			err = fmt.Errorf("on connect: %w", err)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.log.Warn("jsonrpc: dial failed", "err", err)
		return nil, NotSent(fmt.Errorf("dial: %w", err))
	}
	return c, nil
}

// Call calls method on the current connection, dialling first if needed. A
// failed dial is retried as the RetryPolicy says; a call lost in flight is not.
func (r *Redialer) Call(ctx context.Context, method string, params, result any) error {
	return r.opts.Retry.Do(ctx, false, func(ctx context.Context) error {
		c, err := r.Connect(ctx)
		if err != nil {
			return fmt.Errorf("call %s: %w", method, err)
		}
		return c.Call(ctx, method, params, result)
	})
}

// CallIdempotent is Call for a method declared idempotent: a call lost with its
// connection is also tried again, on a new one.
func (r *Redialer) CallIdempotent(ctx context.Context, method string, params, result any) error {
	return r.opts.Retry.Do(ctx, true, func(ctx context.Context) error {
		c, err := r.Connect(ctx)
		if err != nil {
			return fmt.Errorf("call %s: %w", method, err)
		}
		return c.Call(ctx, method, params, result)
	})
}

// Notify sends a notification on the current connection, dialling first if
// needed.
func (r *Redialer) Notify(ctx context.Context, method string, params any) error {
	return r.opts.Retry.Do(ctx, false, func(ctx context.Context) error {
		c, err := r.Connect(ctx)
		if err != nil {
			return fmt.Errorf("notify %s: %w", method, err)
		}
		return c.Notify(ctx, method, params)
	})
}

// Batch sends calls as one batch on the current connection. It is retried only
// when it was not sent.
func (r *Redialer) Batch(ctx context.Context, calls []*BatchCall) error {
	return r.opts.Retry.Do(ctx, false, func(ctx context.Context) error {
		c, err := r.Connect(ctx)
		if err != nil {
			return fmt.Errorf("batch: %w", err)
		}
		return c.Batch(ctx, calls)
	})
}

// CallStream opens a stream on the current connection (see Conn.CallStream). A
// stream that fails to open is retried as a Call is; one that breaks mid-way
// ends with an error wrapping ErrConnectionLost, and is not resumed.
func (r *Redialer) CallStream(ctx context.Context, method string, params any) (ItemStream, error) {
	var s ItemStream
	err := r.opts.Retry.Do(ctx, false, func(ctx context.Context) error {
		c, err := r.Connect(ctx)
		if err != nil {
			return fmt.Errorf("call %s: %w", method, err)
		}
		s, err = c.CallStream(ctx, method, params)
		return err
	})
	return s, err
}

// Close closes the current connection, failing its calls in flight, and makes
// later calls fail with an error wrapping ErrClosed.
func (r *Redialer) Close() error {
	r.mu.Lock()
	r.closed = true
	c := r.conn
	r.conn = nil
	r.mu.Unlock()
	if c == nil {
		return nil
	}
	if err := c.Close(); err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return nil
}
