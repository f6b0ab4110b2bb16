package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonenc"
)

// pendingCall waits for the response to one outgoing request.
type pendingCall struct {
	ch chan response // buffered: the reader never blocks delivering
}

// response is what the reader hands a pending call.
type response struct {
	Response
	err error // set when the connection ended instead
}

// A pendingCall goes back to the pool only when its one response was consumed or can no
// longer arrive, so a late response never reaches a recycled call.
var pendingPool = sync.Pool{New: func() any { return &pendingCall{ch: make(chan response, 1)} }}

// register assigns the next id to p.
func (c *Conn) register(p *pendingCall) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, c.closedErr()
	}
	c.nextID++
	c.pending[c.nextID] = p
	return c.nextID, nil
}

// unregister removes id and reports whether it was still pending; if not, a response
// is already on its way into the call's channel.
func (c *Conn) unregister(id int64) bool {
	c.mu.Lock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	return ok
}

// closedErr must be called with c.mu held.
func (c *Conn) closedErr() error {
	if c.endErr != nil {
		return fmt.Errorf("%w: %v", ErrClosed, c.endErr)
	}
	return ErrClosed
}

// endCalls stops new calls and fails the pending ones, since no response can arrive.
func (c *Conn) endCalls(cause error) {
	c.mu.Lock()
	c.closed = true
	if c.endErr == nil {
		c.endErr = cause
	}
	err := &lostError{c.closedErr()}
	pending := c.pending
	c.pending = make(map[int64]*pendingCall)
	c.mu.Unlock()
	for _, p := range pending {
		p.ch <- response{err: err}
	}
}

// deliver hands the response m to the call waiting for it.
func (c *Conn) deliver(m *message) {
	id, err := strconv.ParseInt(string(m.id), 10, 64)
	var p *pendingCall
	if err == nil {
		c.mu.Lock()
		p = c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
	}
	if p == nil {
		c.logger.Debug("jsonrpc: dropped a response with an unknown id", "id", string(m.id))
		return
	}
	p.ch <- response{Response: Response{Result: m.result, errObj: m.errObj}}
}

// Call sends a request for method with params (omitted when nil) and decodes the result
// into result (discarded when nil). An error response is returned as a *Error. When ctx
// ends first Call returns ctx.Err() at once, tells the peer (CancelMethod, OnCancel) and
// drops the response if it comes later.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if in := c.callingBack(ctx); in != nil {
		defer c.calledBack(in)
	}
	p := pendingPool.Get().(*pendingCall)
	id, err := c.register(p)
	if err != nil {
		pendingPool.Put(p)
		return fmt.Errorf("call %s: %w", method, NotSent(err))
	}
	if err = c.sendRequest(ctx, id, method, params, nil); err != nil {
		if c.unregister(id) {
			pendingPool.Put(p)
		}
		return err
	}
	select {
	case r := <-p.ch:
		pendingPool.Put(p)
		return r.decode(method, result)
	case <-ctx.Done():
		if c.unregister(id) {
			pendingPool.Put(p)
		}
		c.cancelled(id)
		return ctx.Err()
	}
}

// cancelled tells the peer that the call id was abandoned, without holding up the caller.
func (c *Conn) cancelled(n int64) {
	if c.opts.CancelMethod == "" && c.opts.OnCancel == nil {
		return
	}
	id := Int64ID(n)
	go func() {
		if c.opts.CancelMethod != "" {
			params := json.RawMessage(`{` + string(jsonenc.AppendString(nil, c.opts.cancelIDKey())) + `:` + id.String() + `}`)
			if err := c.Notify(context.Background(), c.opts.CancelMethod, params); err != nil {
				c.logger.Debug("jsonrpc: send cancellation", "id", id.String(), "err", err)
			}
		}
		if c.opts.OnCancel != nil {
			c.opts.OnCancel(c, id)
		}
	}()
}

// sendRequest writes the request id for method, after the message first
// appends when first is set (a stream's credit); the error says what failed.
func (c *Conn) sendRequest(ctx context.Context, id int64, method string, params any, first func() error) error {
	e := getEncoder()
	defer e.free()
	if err := e.request(id, method, params); err != nil {
		return fmt.Errorf("encode params of %s: %w", method, err)
	}
	var err error
	if first != nil {
		err = first()
	}
	if err == nil {
		err = c.write(ctx, e.buf.Bytes())
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("call %s: %w", method, writeFailed(err))
	}
	return err
}

// writeFailed is the error of a request whose write failed: the framers write
// a message whole or fail, so the peer cannot have read it all, and it counts
// as not sent.
func writeFailed(err error) error { return NotSent(err) }

func (r *response) decode(method string, result any) error {
	if r.err != nil {
		return fmt.Errorf("call %s: %w", method, r.err)
	}
	return r.Response.Decode(method, result)
}

// Notify sends a notification for method with params (omitted when nil); the peer
// sends no response.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("notify %s: %w", method, NotSent(ErrClosed))
	}
	e := getEncoder()
	defer e.free()
	if err := e.request(0, method, params); err != nil {
		return fmt.Errorf("encode params of %s: %w", method, err)
	}
	if err := c.write(ctx, e.buf.Bytes()); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("notify %s: %w", method, writeFailed(err))
	}
	return nil
}

// BatchCall is one element of a batch: Method and Params go out; Result (a pointer to
// decode into, or nil) and Err come back. A Notification gets neither.
type BatchCall struct {
	Method       string
	Params       any
	Result       any
	Notification bool
	Err          error
}

// Batch sends calls as one JSON array and fills in each call's Result or Err. It
// returns an error only when the batch as a whole failed (encoding, transport, ctx).
func (c *Conn) Batch(ctx context.Context, calls []*BatchCall) error {
	if len(calls) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if in := c.callingBack(ctx); in != nil {
		defer c.calledBack(in)
	}
	ids := make([]int64, len(calls))
	waits := make([]*pendingCall, len(calls))
	abandon := func() {
		for i, id := range ids {
			if id != 0 && c.unregister(id) {
				pendingPool.Put(waits[i])
			}
		}
	}
	e := getEncoder()
	defer e.free()
	e.buf.WriteByte('[')
	for i, call := range calls {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		var id int64
		if !call.Notification {
			p := pendingPool.Get().(*pendingCall)
			var err error
			if id, err = c.register(p); err != nil {
				pendingPool.Put(p)
				abandon()
				return fmt.Errorf("batch: %w", NotSent(err))
			}
			ids[i], waits[i] = id, p
		}
		if err := e.request(id, call.Method, call.Params); err != nil {
			abandon()
			return fmt.Errorf("encode params of %s: %w", call.Method, err)
		}
	}
	e.buf.WriteByte(']')
	if err := c.write(ctx, e.buf.Bytes()); err != nil {
		abandon()
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("batch: %w", writeFailed(err))
	}
	for i, p := range waits {
		if p == nil {
			continue
		}
		select {
		case r := <-p.ch:
			ids[i] = 0
			pendingPool.Put(p)
			calls[i].Err = r.decode(calls[i].Method, calls[i].Result)
			if r.err != nil && errors.Is(r.err, ErrClosed) {
				abandon()
				return calls[i].Err
			}
		case <-ctx.Done():
			abandon()
			return ctx.Err()
		}
	}
	return nil
}
