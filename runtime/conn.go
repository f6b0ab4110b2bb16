package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
)

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

	mu      sync.Mutex
	closed  bool  // no new calls: Close was called or the reader ended
	endErr  error // why, for the error pending and later calls get
	nextID  int64
	pending map[int64]*pendingCall
	tr      *tracker // incoming requests by raw id, for cancellation

	base       context.Context // parent of handler contexts; cancelled by Close
	cancelBase context.CancelFunc
	slots      chan struct{} // one per running handler, bounded by MaxInflight
	jobs       chan job      // hands work to idle workers; unbuffered
	workers    atomic.Int32  // live worker goroutines
	handlers   sync.WaitGroup
	draining   atomic.Bool
	closing    chan struct{}
	done       chan struct{}
	readErr    error

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
		pending: make(map[int64]*pendingCall),
		tr:      newTracker(opts),
		slots:   make(chan struct{}, opts.MaxInflight),
		jobs:    make(chan job),
		closing: make(chan struct{}),
		done:    make(chan struct{}),
	}
	c.base, c.cancelBase = context.WithCancel(context.Background())
	c.srv = server{
		handler:    opts.Handler,
		maxDepth:   opts.MaxDepth,
		noBatches:  opts.NoBatches,
		allowBatch: opts.AllowBatch,
		logger:     opts.Logger,
		conn:       c,
		tr:         c.tr,

		trustResults: opts.TrustResults,
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

// read is the connection's only reader: it routes responses to pending calls and hands
// incoming requests to workers.
func (c *Conn) read() {
	for {
		msg, err := c.f.ReadMessage()
		// The limit is checked here too for framers that have none (Pipe).
		if errors.Is(err, ErrMessageTooLarge) || len(msg) > c.opts.MaxMessageSize {
			c.writeError(nullID, MessageTooLarge(c.opts.MaxMessageSize))
			continue
		}
		if err != nil {
			select {
			case <-c.closing:
			default:
				if !errors.Is(err, io.EOF) {
					c.readErr = fmt.Errorf("jsonrpc: read: %w", err)
				}
			}
			c.stopReading(c.readErr)
			return
		}
		j := c.dispatch(msg)
		if j.kind == noJob {
			continue
		}
		if !c.acquire() {
			c.stopReading(nil)
			return
		}
		c.hand(j)
	}
}

// hand gives j to an idle worker, or starts one. Workers outlive their job and wait for
// the next: a fresh goroutine per request would grow its small stack again while
// decoding, which cost more than the JSON work itself. There are at most MaxInflight
// workers, since each holds a slot while it runs.
func (c *Conn) hand(j job) {
	select {
	case c.jobs <- j:
		return
	default:
	}
	if c.workers.Load() < int32(c.opts.MaxInflight) {
		c.workers.Add(1)
		go c.work(j)
		return
	}
	select {
	case c.jobs <- j:
	case <-c.closing:
		c.handlers.Done()
		<-c.slots
	}
}

// work runs jobs until the connection stops reading or closes.
func (c *Conn) work(j job) {
	defer c.workers.Add(-1)
	for {
		c.run(j)
		select {
		case j = <-c.jobs:
		case <-c.done:
			return
		case <-c.closing:
			return
		}
	}
}

// stopReading is the last reader's duty.
func (c *Conn) stopReading(cause error) {
	c.endCalls(cause)
	close(c.done)
}

// job is work for a handler: one request or notification, or a batch.
type job struct {
	kind  int
	m     message
	batch []byte
}

const (
	noJob = iota
	requestJob
	batchJob
)

// dispatch routes one message, answering what needs no handler on the spot, and
// returns the handler work it needs, if any.
func (c *Conn) dispatch(msg []byte) job {
	if e := c.srv.check(msg); e != nil {
		c.writeError(nullID, e)
		return job{}
	}
	if firstByte(msg) == '[' {
		if c.onlyResponses(msg) {
			return job{}
		}
		if c.draining.Load() {
			// Refused as a whole: what was read before Shutdown began is served,
			// what arrives after it is not.
			c.writeError(nullID, errShuttingDown)
			return job{}
		}
		return job{kind: batchJob, batch: msg}
	}
	j := job{kind: requestJob}
	e, serve := c.srv.admit(msg, &j.m)
	if e != nil {
		c.writeError(j.m.replyID(), e)
		return job{}
	}
	if !serve {
		return job{}
	}
	if c.draining.Load() {
		if j.m.id != nil {
			c.writeError(j.m.id, errShuttingDown)
		}
		return job{}
	}
	return j
}

// run serves j and writes its reply, then gives back the slot acquire took.
func (c *Conn) run(j job) {
	defer c.handlers.Done()
	defer func() { <-c.slots }()
	buf := getBuffer()
	if j.kind == batchJob {
		buf.b = c.srv.serveBatch(c.base, j.batch, buf.b)
	} else {
		buf.b = c.srv.serve(c.base, &j.m, buf.b)
	}
	c.writeReply(buf.b)
	buf.free()
}

// onlyResponses delivers a batch made only of responses (the reply to our own Batch)
// right here, without taking a handler slot; it reports whether it did.
func (c *Conn) onlyResponses(msg []byte) bool {
	cur, _ := openArray(msg)
	n := 0
	for {
		el, ok := cur.nextElem()
		if !ok {
			break
		}
		var m message
		if !m.parse(el) || !m.isResponse() {
			return false
		}
		n++
	}
	if n == 0 {
		return false
	}
	cur, _ = openArray(msg)
	for {
		el, ok := cur.nextElem()
		if !ok {
			return true
		}
		var m message
		m.parse(el)
		c.deliver(&m)
	}
}

// acquire takes a handler slot, waiting while MaxInflight handlers run (which pauses
// reading: backpressure); it returns false if the connection closed meanwhile.
func (c *Conn) acquire() bool {
	select {
	case c.slots <- struct{}{}:
	case <-c.closing:
		return false
	}
	// Adding under the lock, only while not closing, keeps Add from racing Close's Wait
	// even when Close does not wait for the reader.
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.closing:
		<-c.slots
		return false
	default:
	}
	c.handlers.Add(1)
	return true
}

// write sends one message, waiting for the writer at most until ctx ends.
func (c *Conn) write(ctx context.Context, msg []byte) error {
	select {
	case c.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	err := c.f.WriteMessage(msg)
	<-c.wsem
	return err
}

func (c *Conn) writeReply(reply []byte) {
	if len(reply) == 0 {
		return
	}
	if err := c.write(context.Background(), reply); err != nil {
		c.logger.Debug("jsonrpc: write response", "err", err)
	}
}

func (c *Conn) writeError(id []byte, e *Error) {
	buf := getBuffer()
	buf.b = appendErrorResponse(buf.b, id, e)
	c.writeReply(buf.b)
	buf.free()
}

// Shutdown stops serving new requests (they are answered with an error), waits until
// the in-flight handlers have finished and their responses are written, then closes
// the connection. If ctx ends first it closes at once and returns ctx.Err().
func (c *Conn) Shutdown(ctx context.Context) error {
	c.draining.Store(true)
	// Taking every slot means no handler is running and none can start.
	for range cap(c.slots) {
		select {
		case c.slots <- struct{}{}:
		case <-c.closing:
			return c.Close()
		case <-ctx.Done():
			c.Close()
			return ctx.Err()
		}
	}
	return c.Close()
}

// Close closes the framer, fails pending calls with ErrClosed, cancels the contexts of
// running handlers and waits for the reader and the handlers to finish. A handler that
// ignores its context delays Close until it returns.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		close(c.closing)
		c.mu.Unlock()
		c.cancelBase()
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
