package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// clientStream is a stream this side reads: the items the reader delivers, in
// a channel as long as the window, so the reader never waits on a slow consumer,
// and the pending call whose response ends the stream (its own, not pooled:
// one per stream costs nothing, and a pooled one would outlive a synctest
// bubble).
type clientStream struct {
	c      *Conn
	ctx    context.Context
	id     int64
	method string
	window int
	items  chan json.RawMessage
	p      *pendingCall
	taken  int // items taken since the last credit

	mu       sync.Mutex
	overflow bool // the server sent more items than granted

	end    *response // the response, once it came; items may remain
	err    error     // set when Next has returned the end
	closed bool
}

// CallStream sends a request for the stream method and returns its items as
// they come (see StreamItemMethod for the wire). It grants the server
// DefaultStreamWindow items before the request and more as Next takes them, so
// at most that many wait on this side. Close, or cancelling ctx, tells the
// server to stop.
func (c *Conn) CallStream(ctx context.Context, method string, params any) (ItemStream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	window := DefaultStreamWindow
	cs := &clientStream{c: c, ctx: ctx, method: method, window: window,
		items: make(chan json.RawMessage, window), p: &pendingCall{ch: make(chan response, 1)}}
	id, err := c.register(cs.p)
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", method, NotSent(err))
	}
	cs.id = id
	c.st.mu.Lock()
	if c.st.reading == nil {
		c.st.reading = make(map[int64]*clientStream)
	}
	c.st.reading[id] = cs
	c.st.mu.Unlock()

	err = c.sendRequest(ctx, id, method, params, func() error { return c.writeCredit(ctx, id, window) })
	if err != nil {
		cs.forget()
		return nil, err
	}
	return cs, nil
}

func (c *Conn) writeCredit(ctx context.Context, id int64, n int) error {
	buf := getBuffer()
	buf.b = append(buf.b, `{"jsonrpc":"2.0","method":"$/stream.credit","params":{"id":`...)
	buf.b = strconv.AppendInt(buf.b, id, 10)
	buf.b = append(buf.b, `,"n":`...)
	buf.b = strconv.AppendInt(buf.b, int64(n), 10)
	buf.b = append(buf.b, "}}"...)
	err := c.write(ctx, buf.b)
	buf.free()
	return err
}

// streamItem delivers, in the reader, one $/stream notification.
func (c *Conn) streamItem(params []byte) {
	rawID, item := streamParams(params, "item")
	id, err := strconv.ParseInt(string(rawID), 10, 64)
	if err != nil || item == nil {
		c.logger.Debug("jsonrpc: dropped a malformed stream item", "params", string(params))
		return
	}
	c.st.mu.Lock()
	cs := c.st.reading[id]
	c.st.mu.Unlock()
	if cs == nil {
		c.logger.Debug("jsonrpc: dropped an item of a stream not read (ended, or never opened)", "id", id)
		return
	}
	select {
	case cs.items <- item:
	default:
		// More than the window: the server ignores credits. The stream ends
		// with an error rather than make the reader wait or memory grow.
		cs.mu.Lock()
		cs.overflow = true
		cs.mu.Unlock()
		c.logger.Warn("jsonrpc: a stream's server sent more items than granted; the stream ends", "id", id)
		c.streamCancel(id)
		if c.unregister(id) {
			cs.p.ch <- response{err: fmt.Errorf("stream %s: the server sent more than the %d items granted", cs.method, cs.window)}
		}
	}
}

// Next implements ItemStream.
func (cs *clientStream) Next() (json.RawMessage, error) {
	if cs.err != nil {
		return nil, cs.err
	}
	select {
	case it := <-cs.items:
		return cs.took(it), nil
	default:
	}
	if cs.end == nil {
		select {
		case it := <-cs.items:
			return cs.took(it), nil
		case r := <-cs.p.ch:
			// The reader delivers every item before the response, so what is
			// in the channel now is the rest of the stream.
			cs.end = &r
		case <-cs.ctx.Done():
			cs.Close()
			cs.err = cs.ctx.Err()
			return nil, cs.err
		}
	}
	select {
	case it := <-cs.items:
		return it, nil
	default:
	}
	cs.finish()
	var null json.RawMessage
	if err := cs.end.decode(cs.method, &null); err != nil {
		cs.err = err
	} else {
		cs.err = io.EOF
	}
	return nil, cs.err
}

// took counts an item taken and grants more once half the window is.
func (cs *clientStream) took(it json.RawMessage) json.RawMessage {
	cs.taken++
	if cs.taken >= cs.window/2 && cs.end == nil {
		if err := cs.c.writeCredit(cs.ctx, cs.id, cs.taken); err != nil {
			cs.c.logger.Debug("jsonrpc: send stream credit", "id", cs.id, "err", err)
		}
		cs.taken = 0
	}
	return it
}

// Close implements ItemStream.
func (cs *clientStream) Close() error {
	if cs.closed {
		return nil
	}
	cs.closed = true
	if cs.err == nil && cs.end == nil {
		cs.c.unregister(cs.id)
		cs.c.streamCancel(cs.id)
		cs.err = fmt.Errorf("stream %s: closed", cs.method)
	}
	cs.finish()
	return nil
}

func (cs *clientStream) finish() {
	cs.c.st.mu.Lock()
	if cs.c.st.reading[cs.id] == cs {
		delete(cs.c.st.reading, cs.id)
	}
	cs.c.st.mu.Unlock()
}

// forget undoes CallStream's registration after its request failed to go out.
func (cs *clientStream) forget() {
	cs.c.unregister(cs.id)
	cs.finish()
}

// streamCancel tells the server to stop the stream id, without holding up the
// caller.
func (c *Conn) streamCancel(id int64) {
	go func() {
		buf := getBuffer()
		buf.b = append(buf.b, `{"jsonrpc":"2.0","method":"$/stream.cancel","params":{"id":`...)
		buf.b = strconv.AppendInt(buf.b, id, 10)
		buf.b = append(buf.b, "}}"...)
		if err := c.write(context.Background(), buf.b); err != nil {
			c.logger.Debug("jsonrpc: send stream cancellation", "id", id, "err", err)
		}
		buf.free()
	}()
}
