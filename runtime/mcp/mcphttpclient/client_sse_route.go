package mcphttpclient

import (
	"context"
	"fmt"
	"sync"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/httpwire"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
	"github.com/rpcgen/rpcgen/runtime/mcp/mcpclient"
)

// clientCall is one request waiting for its response on the stream.
type clientCall struct {
	seq   uint64 // registration order: the oldest call gets uncorrelated messages
	mu    sync.Mutex
	queue []clientQueued
	ready chan struct{} // holds a token while queue may be non-empty
}

// clientQueued is one message for a call; response marks its answer.
type clientQueued struct {
	msg      []byte
	response bool
}

func (c *clientCall) push(msg []byte, response bool) {
	c.mu.Lock()
	c.queue = append(c.queue, clientQueued{msg, response})
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

func (c *clientCall) take() []clientQueued {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.queue
	c.queue = nil
	return q
}

// route queues a server message for the call it belongs to, or hands it to
// the incoming function when no call waits.
func (t *sseTransport) route(msg []byte) {
	if f := t.routeCall(msg); f != nil {
		f(msg)
	}
}

// routeCall queues msg for its call; it returns where msg goes instead, or
// nil.
func (t *sseTransport) routeCall(msg []byte) func([]byte) {
	var env httpwire.Envelope
	if !env.Scan(msg) {
		t.cfg.logger.Debug("mcphttp: dropped an event that is not a JSON object")
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case env.IsResponse():
		if id, ok := wire.ParseID(env.ID); ok {
			if c := t.calls[id]; c != nil {
				c.push(msg, true)
				return nil
			}
		}
		t.cfg.logger.Debug("mcphttp: dropped a response to no waiting call", "id", string(env.ID))
	case env.Method == nil:
		t.cfg.logger.Debug("mcphttp: dropped a message that is neither request, response nor notification")
	case env.ID == nil && wire.StringIs(env.Method, mcp.NotificationProgress):
		if id, ok := wire.ParseID(httpwire.Member(env.Params, "progressToken")); ok {
			if c := t.calls[id]; c != nil {
				c.push(msg, false)
			}
		}
	default:
		if c := t.oldest(); c != nil {
			c.push(msg, false)
			return nil
		}
		if t.incoming != nil && !t.closed {
			return t.incoming
		}
		if env.ID != nil && !t.closed {
			t.answers.Add(1)
			go t.answer(env.ID, wire.StringIs(env.Method, mcp.MethodPing))
		}
	}
	return nil
}

// oldest returns the call waiting longest, or nil; t.mu must be held.
func (t *sseTransport) oldest() *clientCall {
	var o *clientCall
	for _, c := range t.calls {
		if o == nil || c.seq < o.seq {
			o = c
		}
	}
	return o
}

// answer replies to a server request that arrived with no call waiting.
func (t *sseTransport) answer(id []byte, ping bool) {
	defer t.answers.Done()
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	if ping {
		b = append(b, `,"result":{}}`...)
	} else {
		b = append(b, `,"error":{"code":-32601,"message":"Method not found"}}`...)
	}
	ctx, stop := context.WithTimeout(t.closeCtx, clientNoticeTimeout)
	defer stop()
	st, err := t.stream()
	if err == nil {
		_, err = t.post(ctx, st, 0, b)
	}
	if err != nil {
		t.cfg.logger.Debug("mcphttp: answer a server request", "err", err)
	}
}

// register adds a waiting call for request id, on the stream in use.
func (t *sseTransport) register(id int64) (*clientCall, *sseStream, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return nil, nil, runtime.ErrClosed
	case t.cur.endErr != nil:
		return nil, nil, runtime.NotSent(t.cur.endErr)
	}
	t.seq++
	c := &clientCall{seq: t.seq, ready: make(chan struct{}, 1)}
	t.calls[id] = c
	return c, t.cur, nil
}

func (t *sseTransport) unregister(id int64) {
	t.mu.Lock()
	delete(t.calls, id)
	t.mu.Unlock()
}

// RoundTrip implements mcpclient.Transport.
func (t *sseTransport) RoundTrip(ctx context.Context, id int64, msg []byte, incoming func([]byte)) ([]byte, error) {
	c, st, err := t.register(id)
	if err != nil {
		return nil, err
	}
	defer t.unregister(id)
	rctx, stop := context.WithCancel(ctx)
	stopClose := context.AfterFunc(t.closeCtx, stop)
	reply, err := t.post(rctx, st, id, msg)
	stopClose()
	stop()
	if reply != nil {
		return reply, nil
	}
	if err == nil {
		if reply, err = t.wait(ctx, st, c, incoming); reply != nil {
			return reply, nil
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		if !mcpclient.NoCancel(ctx) {
			cctx, stop := context.WithTimeout(t.closeCtx, clientNoticeTimeout)
			if _, err := t.post(cctx, st, 0, clientCancelMessage(id, cerr)); err != nil {
				t.cfg.logger.Debug("mcphttp: send "+mcp.NotificationCancelled, "id", id, "err", err)
			}
			stop()
		}
		return nil, cerr
	}
	if t.isClosed() {
		return nil, runtime.ErrClosed
	}
	return nil, err
}

// wait hands call c's messages to incoming until its response arrives,
// which it returns.
func (t *sseTransport) wait(ctx context.Context, st *sseStream, c *clientCall, incoming func([]byte)) ([]byte, error) {
	for {
		select {
		case <-c.ready:
			if reply := clientDeliver(c.take(), incoming); reply != nil {
				return reply, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-st.done:
			if reply := clientDeliver(c.take(), incoming); reply != nil {
				return reply, nil
			}
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.closed {
				return nil, st.endErr
			}
			// The request reached the server, which may have run it.
			return nil, fmt.Errorf("%w: %w", runtime.ErrConnectionLost, st.endErr)
		}
	}
}

// clientDeliver passes queued messages to incoming up to the response, which it
// returns.
func clientDeliver(q []clientQueued, incoming func([]byte)) []byte {
	for _, m := range q {
		if m.response {
			return m.msg
		}
		incoming(m.msg)
	}
	return nil
}
