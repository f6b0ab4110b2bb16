package runtime

import (
	"context"
	"io"
	"os"
	"time"
)

// shutdownGrace bounds how long Serve waits for in-flight handlers once it stops.
const shutdownGrace = 5 * time.Second

// Serve runs a connection over f until the peer hangs up or ctx ends. In-flight
// handlers get a grace period to finish and have their responses written. It returns
// nil when the peer hung up cleanly, the read error if the stream failed, and ctx.Err()
// when ctx ended.
func Serve(ctx context.Context, f Framer, opts Options) error {
	return serve(ctx, NewConn(f, opts))
}

func serve(ctx context.Context, c *Conn) error {
	grace := func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		c.Shutdown(sctx)
	}
	select {
	case <-c.Done():
		grace()
		return c.Err()
	case <-ctx.Done():
		grace()
		return ctx.Err()
	}
}

// ServeStdio serves over the process's stdin and stdout with opts.Framing; nothing but
// protocol messages is written to stdout. When ctx ends first, the reader blocked on
// stdin is left behind, since a read on a terminal or pipe cannot be interrupted; it
// ends with the process.
func ServeStdio(ctx context.Context, opts Options) error {
	if opts.Transport == "" {
		opts.Transport = TransportPipe
	}
	f := NewFramer(opts.Framing, io.Reader(stdinReader{}), os.Stdout, opts.MaxMessageSize)
	c := newConn(f, opts)
	c.detached = true
	if ctx.Done() == nil {
		// ctx never ends (context.Background, as a server's main usually passes), so
		// only the reader's end can end serving: it reads on this goroutine. In a
		// fresh process that spares the handshake a goroutine start, the stack it
		// grows, and the move to another thread (and its cold allocation caches)
		// that the go statement's wakeup of an idle P tends to cause.
		c.read()
	} else {
		c.start()
	}
	return serve(ctx, c)
}

// stdinReader reads os.Stdin without exposing its Close, so closing the connection
// does not close the process's stdin under a reader that is still blocked on it.
type stdinReader struct{}

func (stdinReader) Read(p []byte) (int, error) { return os.Stdin.Read(p) }
