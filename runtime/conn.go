package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// errBusy answers a request that arrives while every handler waits for the peer and
// the queue is full (see Conn.admitJob).
var errBusy = &Error{Code: CodeServerError, Message: "server busy: every handler is waiting for the peer"}

// cancelledContext returns the parent of the handler context of a request cancelled
// while it was queued. It is made on first use, not at package initialisation.
func cancelledContext() context.Context {
	cancelled.once.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		cancelled.ctx = ctx
	})
	return cancelled.ctx
}

var cancelled struct {
	once sync.Once
	ctx  context.Context
}

// ErrClosed is returned (wrapped) by calls on a connection that has been closed or whose
// peer has hung up.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Caller is what generated clients call through; *Conn and *rpchttp.Client (package
// runtime/rpchttp, JSON-RPC over HTTP) implement it.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
	Notify(ctx context.Context, method string, params any) error
}

// Conn is a bidirectional JSON-RPC 2.0 connection: either side may call or notify the
// other. Its methods are safe for concurrent use.
type Conn struct {
	f      Framer
	opts   Options
	logger *slog.Logger
	srv    server

	wsem chan struct{} // serializes writes; a channel so a waiting Call can give up on ctx
	// What c holds for its peer, and the budget it counts against (conn_output.go).
	unsent atomic.Int64
	budget *OutputBudget
	// Stream items buffered by writeSoon and not yet flushed (under wsem), and
	// the flusher that sends them.
	unflushed bool
	flushOnce sync.Once
	flushReq  chan struct{}

	mu      sync.Mutex
	closed  bool  // no new calls: Close was called or the reader ended
	endErr  error // why, for the error pending and later calls get
	nextID  int64
	pending map[int64]*pendingCall
	tr      *tracker // incoming requests by raw id, for cancellation
	st      streams  // the streams served and read

	base       context.Context // parent of handler contexts; cancelled by Close
	cancelBase context.CancelFunc
	jobs       chan job     // hands work to idle workers; unbuffered
	workers    atomic.Int32 // live worker goroutines
	handlers   sync.WaitGroup
	draining   atomic.Bool
	lastRead   atomic.Int64 // when the reader last read a message while draining (Unix ns)
	closing    chan struct{}
	done       chan struct{}
	readErr    error

	// Handler slots and the queue of work waiting for one, under qmu. The reader
	// never waits for a slot, only for room in the queue, so responses and
	// cancellations are read while every slot is taken; see admitJob.
	qmu     sync.Mutex
	running int   // slots held (at most MaxInflight); the queue is empty unless all are
	queue   []job // ring of MaxQueued jobs, made on first use
	qhead   int
	qlen    int
	qbytes  int  // the queued messages' total size
	waiting int  // handlers of c blocked in a Call or Batch to the peer
	rwait   bool // the reader waits on wake for room in the queue
	wake    chan struct{}
	idle    chan struct{} // made by Shutdown, closed once no job runs or waits
	stopped bool          // no job may start: Shutdown found c idle, or Close ran

	closeOnce sync.Once
	closeErr  error
	// afterClose runs after the framer is closed (DialCommand waits for its process).
	afterClose func() error
	// detached makes Close skip waiting for the reader, for readers a Close cannot
	// interrupt (a process's own stdin).
	detached bool
}

// NewConn returns a connection over f and starts reading from it at once.
func NewConn(f Framer, opts Options) *Conn {
	c := newConn(f, opts)
	c.start()
	return c
}

func newConn(f Framer, opts Options) *Conn {
	opts = opts.withDefaults()
	c := &Conn{
		f:       f,
		opts:    opts,
		logger:  opts.Logger,
		wsem:    make(chan struct{}, 1),
		budget:  opts.OutputBudget,
		pending: make(map[int64]*pendingCall),
		tr:      newTracker(opts),
		jobs:    make(chan job),
		wake:    make(chan struct{}, 1),
		closing: make(chan struct{}),
		done:    make(chan struct{}),
	}
	c.base, c.cancelBase = context.WithCancel(context.Background())
	c.tr.missed = c.cancelQueued
	c.srv = server{
		handler:    handlerOf(opts),
		maxDepth:   opts.MaxDepth,
		noBatches:  opts.NoBatches,
		allowBatch: opts.AllowBatch,
		logger:     opts.Logger,
		conn:       c,
		tr:         c.tr,

		trustResults: opts.TrustResults,
		strictIDs:    opts.StrictIDs,
		transport:    opts.Transport,
	}
	return c
}

func (c *Conn) start() { go c.read() }

// Done returns a channel that is closed when the connection stops reading: the peer hung
// up, the stream failed or Close was called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection stopped reading once Done is closed: nil for a clean
// end of stream or a local Close, otherwise the read error.
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.readErr
	default:
		return nil
	}
}

// Shutdown stops serving new requests (they are answered with an error), waits until
// the in-flight and queued requests have been handled and their responses written
// (responses to the handlers' own calls are still read meanwhile), then closes
// the connection. Before closing it reads on until nothing has come for
// shutdownQuiet (a second at most, and not once the peer has hung up), so that a
// request the peer sent as the shutdown began is answered with the error rather
// than lost with the connection. If ctx ends first it closes at once and returns
// ctx.Err().
func (c *Conn) Shutdown(ctx context.Context) error {
	c.lastRead.Store(time.Now().UnixNano())
	c.draining.Store(true)
	c.noteState()
	c.qmu.Lock()
	if c.running == 0 {
		// Nothing runs or is queued (see release); nothing may start now.
		c.stopped = true
		c.qmu.Unlock()
		c.quiesce(ctx)
		return c.Close()
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	idle := c.idle
	c.qmu.Unlock()
	select {
	case <-idle:
	case <-c.closing:
	case <-ctx.Done():
		c.Close()
		return ctx.Err()
	}
	c.quiesce(ctx)
	return c.Close()
}

const (
	// shutdownQuiet is how long Shutdown waits for the peer to fall silent
	// before it closes the connection.
	shutdownQuiet = 100 * time.Millisecond
	// maxQuiesce bounds that wait, for a peer that keeps sending.
	maxQuiesce = time.Second
)

// quiesce waits, while the reader answers every new request with an error,
// until nothing has been read for shutdownQuiet, the peer hangs up, c closes,
// ctx ends or maxQuiesce passes.
func (c *Conn) quiesce(ctx context.Context) {
	limit := time.Now().Add(maxQuiesce)
	t := time.NewTimer(shutdownQuiet)
	defer t.Stop()
	for {
		wait := shutdownQuiet - time.Since(time.Unix(0, c.lastRead.Load()))
		if wait <= 0 || time.Now().After(limit) {
			return
		}
		t.Reset(wait)
		select {
		case <-t.C:
		case <-c.done:
			return
		case <-c.closing:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Close closes the framer, fails pending calls with ErrClosed, cancels the contexts of
// running handlers, drops the queued requests and waits for the reader and the
// handlers to finish. A handler that ignores its context delays Close until it returns.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		close(c.closing)
		c.mu.Unlock()
		c.cancelBase()
		// Queued work is dropped unanswered, like what the peer had yet to send.
		c.qmu.Lock()
		c.stopped = true
		clear(c.queue)
		c.qlen, c.qbytes = 0, 0
		c.qmu.Unlock()
		if err := c.f.Close(); err != nil && !errors.Is(err, io.ErrClosedPipe) {
			c.closeErr = fmt.Errorf("jsonrpc: close: %w", err)
		}
		if c.afterClose != nil {
			if err := c.afterClose(); err != nil {
				c.closeErr = err
			}
		}
		if !c.detached {
			<-c.done
		}
		c.handlers.Wait()
		c.endCalls(nil)
	})
	return c.closeErr
}

// Inflight returns the number of incoming requests being handled or waiting
// for a handler: a transport that closes idle connections must not close one
// that owes its peer an answer.
func (c *Conn) Inflight() int {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	return c.running
}
