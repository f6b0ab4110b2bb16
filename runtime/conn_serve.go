package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// read is the connection's only reader: it routes responses to pending calls and hands
// incoming requests to workers.
func (c *Conn) read() {
	for {
		msg, err := c.f.ReadMessage()
		if c.draining.Load() {
			c.lastRead.Store(time.Now().UnixNano()) // Shutdown waits for the peer to fall silent
		}
		// The limit is checked here too for framers that have none (Pipe).
		if errors.Is(err, ErrMessageTooLarge) || len(msg) > c.opts.MaxMessageSize {
			c.writeError(nullID, MessageTooLarge(c.opts.MaxMessageSize))
			continue
		}
		if fe, ok := errors.AsType[*FrameError](err); ok {
			c.srv.logger.Debug("jsonrpc: skipped a malformed frame", "reason", fe.Reason)
			id := nullID
			if fe.ID != nil {
				id = fe.ID
			}
			c.writeError(id, &Error{Code: CodeParseError, Message: "Parse error", Data: jsonenc.AppendString(nil, fe.Reason)})
			continue
		}
		if err != nil {
			select {
			case <-c.closing:
			default:
				if !errors.Is(err, io.EOF) {
					c.readErr = fmt.Errorf("jsonrpc: read: %w", err)
					c.srv.logger.Error("jsonrpc: the stream cannot be read on; the connection ends", "err", err)
				}
			}
			c.stopReading(c.readErr)
			return
		}
		j := c.dispatch(msg)
		if j.kind == noJob {
			continue
		}
		j.size = len(msg)
		if !c.admitJob(j) {
			c.stopReading(nil)
			return
		}
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
		c.release()
	}
}

// work runs jobs until the connection stops reading or closes.
func (c *Conn) work(j job) {
	defer c.workers.Add(-1)
	for {
		c.run(j)
		if n, ok := c.next(); ok {
			j = n
			continue
		}
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
	kind      int
	m         message
	batch     []byte
	size      int  // of the message, for the queue's bound
	cancelled bool // by a cancellation that came while it was queued
}

const (
	noJob = iota
	requestJob
	batchJob
)

// dispatch routes one message, answering what needs no handler on the spot, and
// returns the handler work it needs, if any.
func (c *Conn) dispatch(msg []byte) job {
	j := job{kind: requestJob}
	e, batch := c.srv.check(msg, &j.m)
	if e != nil {
		c.writeError(nullID, e)
		return job{}
	}
	if batch {
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
	e, serve := c.srv.admit(msg, &j.m, true)
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

// run serves j and writes its reply, on the slot admitJob took.
func (c *Conn) run(j job) {
	buf := getBuffer()
	var id []byte // of the reply: nil for a batch's
	if j.kind == batchJob {
		buf.b = c.srv.serveBatch(c.base, j.batch, buf.b)
	} else {
		id = j.m.id
		parent := c.base
		if j.cancelled {
			parent = cancelledContext()
		}
		buf.b = c.srv.serve(parent, &j.m, buf.b)
		if j.m.id != nil {
			c.forgetEarly(j.m.id)
		}
	}
	reply := buf.b
	e := c.writeReply(id, reply)
	if e != nil {
		// Not back to the pool: a peer that does not read would fill it with
		// the answers it was refused.
		buf.b = nil
	}
	buf.free()
	if e != nil {
		if id == nil {
			c.writeBatchError(reply, e)
			return
		}
		c.writeError(id, e)
	}
}

// writeBatchError answers a batch whose reply the output bounds refused with
// e for each answer of the reply, in one batch, whatever the bounds: each
// call of the peer ends, as a refused single answer's does.
func (c *Conn) writeBatchError(reply []byte, e *Error) {
	out := getBuffer()
	out.b = append(out.b, '[')
	cur, _ := jsonscan.OpenArray(reply)
	for {
		el, ok := cur.NextElem()
		if !ok {
			break
		}
		var m message
		if !m.parse(el) || m.id == nil {
			continue
		}
		if len(out.b) > 1 {
			out.b = append(out.b, ',')
		}
		out.b = appendErrorResponse(out.b, m.id, e)
	}
	out.b = append(out.b, ']')
	if len(out.b) == 2 { // no answer had an id: cannot be, as a reply holds answers to requests
		out.free()
		c.writeError(nullID, e)
		return
	}
	select {
	case <-c.closing:
	default:
		if err := c.send(context.Background(), out.b, true); err != nil {
			c.logger.Debug("jsonrpc: write response", "err", err)
		}
	}
	out.free()
}

// onlyResponses delivers a batch made only of responses (the reply to our own Batch)
// right here, without taking a handler slot; it reports whether it did.
func (c *Conn) onlyResponses(msg []byte) bool {
	cur, _ := jsonscan.OpenArray(msg)
	n := 0
	for {
		el, ok := cur.NextElem()
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
	cur, _ = jsonscan.OpenArray(msg)
	for {
		el, ok := cur.NextElem()
		if !ok {
			return true
		}
		var m message
		m.parse(el)
		c.deliver(&m)
	}
}

// write sends one message, waiting for the writer at most until ctx ends; a message
// the output bounds refuse (see hold) is an error wrapping ErrUnread.
func (c *Conn) write(ctx context.Context, msg []byte) error {
	return c.send(ctx, msg, false)
}

// send is write; force sends a small message whatever the output bounds.
func (c *Conn) send(ctx context.Context, msg []byte, force bool) error {
	if err := c.hold(len(msg), force); err != nil {
		return err
	}
	defer c.unhold(len(msg))
	select {
	case c.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	err := c.f.WriteMessage(msg)
	c.unflushed = false // the framer flushed what writeSoon buffered too
	<-c.wsem
	return err
}

// writeReply writes a handler's reply to the request id (nil for a batch). For a
// reply the output bounds refuse it returns the error that replaces it, for the
// caller to write once it has let the reply go (waiting to write the error while
// holding the reply would hold what the bound let go).
func (c *Conn) writeReply(id, reply []byte) *Error {
	if len(reply) == 0 {
		return nil
	}
	select {
	case <-c.closing:
		// Close cancelled the handler (closing is closed first): its reply
		// is dropped, as the peer's pending call ends with ErrClosed.
		return nil
	default:
	}
	err := c.send(context.Background(), reply, false)
	if errors.Is(err, ErrUnread) {
		c.logger.Warn("jsonrpc: an answer was not sent: the peer has not read the answers before it", "id", string(id), "bytes", len(reply), "err", err)
		return unreadAnswer(err)
	}
	if err != nil {
		c.logger.Debug("jsonrpc: write response", "err", err)
	}
	return nil
}

// writeError writes an error response, whatever the output bounds.
func (c *Conn) writeError(id []byte, e *Error) {
	select {
	case <-c.closing:
		return
	default:
	}
	buf := getBuffer()
	buf.b = appendErrorResponse(buf.b, id, e)
	if err := c.send(context.Background(), buf.b, true); err != nil {
		c.logger.Debug("jsonrpc: write response", "err", err)
	}
	buf.free()
}
