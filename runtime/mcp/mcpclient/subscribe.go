package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// In 2026-07-28 there is no resources/subscribe: a client opens a
// subscriptions/listen request naming what it wants to hear, and the server
// streams the notifications on it until either side ends it. The client
// keeps one such stream for all its subscriptions; Subscribe and Unsubscribe
// open a new one with the new set, wait for the server's acknowledgement and
// only then end the old one, so no update falls between the two.

// listener is a client's subscriptions/listen stream (2026-07-28).
type listener struct {
	op sync.Mutex // serializes Subscribe and Unsubscribe

	mu   sync.Mutex
	uris []string              // subscribed resources, in order
	stop context.CancelFunc    // ends the current stream; nil when none
	acks map[int64]chan []byte // streams waiting for their acknowledgement (its params)
	// tasks are the streams following a task's status (TaskHandle.Result),
	// by subscription id.
	tasks map[int64]*taskWatch
}

// subscribeModern changes the subscribed set (add or remove uri) and moves
// to a stream listening for it.
func (c *Client) subscribeModern(ctx context.Context, uri string, add bool) error {
	l := &c.listen
	l.op.Lock()
	defer l.op.Unlock()
	l.mu.Lock()
	uris := slices.Clone(l.uris)
	l.mu.Unlock()
	i := slices.Index(uris, uri)
	switch {
	case add && i < 0:
		uris = append(uris, uri)
	case !add && i >= 0:
		uris = slices.Delete(uris, i, i+1)
	default:
		return nil
	}
	var stop context.CancelFunc
	if len(uris) > 0 || c.opts.OnListChanged != nil {
		var err error
		if stop, err = c.openListen(ctx, uris); err != nil {
			return err
		}
	}
	l.mu.Lock()
	old := l.stop
	l.uris, l.stop = uris, stop
	l.mu.Unlock()
	if old != nil {
		old()
	}
	return nil
}

// openListen sends subscriptions/listen for uris (and the list changes, when
// OnListChanged is set) and waits for the server's acknowledgement. The
// stream then runs until the returned function is called or the client
// closes: when the server ends it or it is lost (its replica died, the
// connection broke), the client opens it again (keepListening).
func (c *Client) openListen(ctx context.Context, uris []string) (context.CancelFunc, error) {
	filter := struct {
		Tools     bool     `json:"toolsListChanged,omitempty"`
		Prompts   bool     `json:"promptsListChanged,omitempty"`
		Resources bool     `json:"resourcesListChanged,omitempty"`
		URIs      []string `json:"resourceSubscriptions,omitempty"`
	}{URIs: uris}
	if c.opts.OnListChanged != nil {
		filter.Tools, filter.Prompts, filter.Resources = true, true, true
	}
	fb, err := json.Marshal(filter)
	if err != nil {
		return nil, fmt.Errorf("mcp: encode subscriptions/listen filter: %w", err)
	}
	base := c.serving.base
	if ctx.Value(clientRenewKey{}) != nil {
		// A renewal moving to 2026-07-28 opens it: it must not wait for
		// itself (and that era has no session to renew again).
		base = context.WithValue(base, clientRenewKey{}, true)
	}
	lctx, stop := context.WithCancel(base)
	acked, ended := c.startListen(lctx, fb)
	select {
	case <-acked:
		go c.keepListening(lctx, fb, ended)
		return stop, nil
	case err := <-ended:
		stop()
		return nil, fmt.Errorf("mcp: subscriptions/listen: %w", err)
	case <-ctx.Done():
		stop()
		return nil, ctx.Err()
	}
}

// startListen sends one subscriptions/listen with the filter fb, read
// until lctx ends: acked closes when the server acknowledges it, ended
// receives why it ended.
func (c *Client) startListen(lctx context.Context, fb []byte) (acked chan []byte, ended chan error) {
	return c.startListenID(lctx, c.nextID.Add(1), fb)
}

// startListenID is startListen with the request's id: acked receives the
// acknowledgement's params.
func (c *Client) startListenID(lctx context.Context, id int64, fb []byte) (acked chan []byte, ended chan error) {
	acked, ended = make(chan []byte, 1), make(chan error, 1)
	l := &c.listen
	l.mu.Lock()
	if l.acks == nil {
		l.acks = make(map[int64]chan []byte)
	}
	l.acks[id] = acked
	l.mu.Unlock()
	cb := clientGetBuf()
	cb.begin(id, mcp.MethodSubscriptionsListen)
	cb.field("notifications")
	cb.b.Write(fb)
	go func() {
		_, err := c.roundTrip(lctx, id, cb, 0, nil)
		if err == nil {
			err = errors.New("mcp: the server ended the subscription")
		}
		c.logger.Debug("mcp: subscriptions/listen ended", "id", id, "err", err)
		l.mu.Lock()
		delete(l.acks, id)
		l.mu.Unlock()
		ended <- err
	}()
	return acked, ended
}

// keepListening waits for the acknowledged stream to end and, unless lctx
// ended (Unsubscribe, a newer set, Close), opens it again with the same
// filter, with the Retry policy's backoff between attempts (reset once a
// new stream is acknowledged), until lctx ends. Behind a load balancer the
// new stream lands on a live replica. What the server sent while no stream
// was open is not heard: 2026-07-28 streams are not resumed.
func (c *Client) keepListening(lctx context.Context, fb []byte, ended chan error) {
	n, err := 0, <-ended
	for lctx.Err() == nil {
		n++
		c.logger.Warn("mcp: subscriptions/listen lost; opening it again", "attempt", n, "err", err)
		t := time.NewTimer(c.opts.Retry.Delay(n))
		select {
		case <-t.C:
		case <-lctx.Done():
			t.Stop()
			return
		}
		acked, ended := c.startListen(lctx, fb)
		select {
		case <-acked:
			c.logger.Info("mcp: subscriptions/listen opened again", "attempts", n)
			n, err = 0, <-ended
		case err = <-ended:
		}
	}
}

// acknowledged handles notifications/subscriptions/acknowledged.
func (c *Client) acknowledged(params []byte) {
	var p struct {
		Meta struct {
			ID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, ok := wire.ParseID(p.Meta.ID)
	if !ok {
		c.logger.Debug("mcp: dropped an acknowledgement of an unknown subscription", "id", string(p.Meta.ID))
		return
	}
	l := &c.listen
	l.mu.Lock()
	ch := l.acks[id]
	delete(l.acks, id)
	l.mu.Unlock()
	if ch != nil {
		ch <- bytes.Clone(params)
	}
}
