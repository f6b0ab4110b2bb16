package rpcnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// DialOptions configures Dial. The zero value is usable.
type DialOptions struct {
	// Options configure each connection made: Handler serves the requests the
	// server sends back, Framing must match the server's.
	Options runtime.Options
	// Redial configures reconnection: the retry policy (backoff between failed
	// dials; which calls are tried again), a hook run on each new connection,
	// and a logger.
	Redial runtime.RedialOptions
	// Timeout bounds one dial (default 10 seconds).
	Timeout time.Duration
	// WriteTimeout bounds each write to the server (default
	// DefaultWriteTimeout; negative for none).
	WriteTimeout time.Duration
	// MessageTimeout bounds the time a message from the server takes to
	// arrive once its first byte has (default DefaultMessageTimeout; negative
	// for none), as Server.MessageTimeout does.
	MessageTimeout time.Duration
	// Dialer, if set, makes the connections instead of a net.Dialer: a TLS
	// dialer, say.
	Dialer interface {
		DialContext(ctx context.Context, network, address string) (net.Conn, error)
	}
}

// Dial connects to the JSON-RPC server at address on network ("tcp", "tcp4",
// "tcp6" or "unix") and returns a runtime.Redialer over it: a Caller that
// dials again, with backoff, when the connection drops. The first connection
// is made before Dial returns, so a wrong address fails here.
//
//	client, err := rpcnet.Dial(ctx, "unix", "/run/calc.sock", nil)
//	defer client.Close()
//	sum, err := calc.NewCalculatorClient(client).Add(ctx, 2, 3)
func Dial(ctx context.Context, network, address string, opts *DialOptions) (*runtime.Redialer, error) {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	r := runtime.NewRedialer(Dialer(network, address, &o), o.Redial)
	if _, err := r.Connect(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// Dialer returns the DialFunc that Dial's Redialer uses, for building a
// runtime.Redialer with other options, or one connection at a time.
func Dialer(network, address string, opts *DialOptions) runtime.DialFunc {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := o.Dialer
	if d == nil {
		d = &net.Dialer{}
	}
	return func(ctx context.Context) (*runtime.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		nc, err := d.DialContext(dctx, network, address)
		if err != nil {
			return nil, fmt.Errorf("rpcnet: %w", err)
		}
		sock := newSocket(nc, o.WriteTimeout, 0, o.MessageTimeout)
		sock.client = true
		copts := o.Options
		if copts.Transport == "" {
			copts.Transport = transportOf(network)
		}
		c := runtime.NewConn(runtime.NewFramer(copts.Framing, sock, sock, copts.MaxMessageSize), copts)
		sock.conn.Store(c)
		return c, nil
	}
}

// Listen listens on address: a TCP host:port, or the path of a Unix socket
// (network "unix"). A Unix socket file left behind by a server that did not
// shut down cleanly (nothing answers on it) is removed first, so a restarted
// service can bind its path again; a socket in use is an error.
func Listen(network, address string) (net.Listener, error) {
	ln, err := net.Listen(network, address)
	if err == nil || network != "unix" || !errors.Is(err, errAddrInUse) {
		return ln, err
	}
	fi, serr := os.Lstat(address)
	if serr != nil || fi.Mode()&os.ModeSocket == 0 {
		return nil, err
	}
	if c, derr := net.DialTimeout("unix", address, time.Second); derr == nil {
		c.Close()
		return nil, fmt.Errorf("%w (a server is listening on it)", err)
	}
	if rerr := os.Remove(address); rerr != nil {
		return nil, err
	}
	return net.Listen(network, address)
}
