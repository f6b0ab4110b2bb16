package runtime

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// streams is a Conn's state of the streams it serves and reads, under its own
// lock: the reader touches it for every stream notification.
type streams struct {
	mu sync.Mutex
	// serving are the streams this side's handlers send, by raw request id.
	serving map[string]*serverStream
	// early holds credits that came before their request began streaming (a
	// client grants its window before it sends the request), bounded by maxEarly.
	early  map[string]int
	nearly atomic.Int32 // len(early), read without the lock
	// reading are the streams this side's CallStream reads, by request id.
	reading map[int64]*clientStream
}

// maxEarly bounds the credits kept for requests that have not begun streaming.
const maxEarly = 1024

// serverStream is one stream a handler sends over the Conn.
type serverStream struct {
	c       *Conn
	id      string // raw request id
	counted bool   // the client grants credits; otherwise items go out as the transport takes them
	mu      sync.Mutex
	credits int
	wake    chan struct{} // cap 1: credits came
}

func (c *Conn) openServerStream(id string) *serverStream {
	ss := &serverStream{c: c, id: id, wake: make(chan struct{}, 1)}
	c.st.mu.Lock()
	if n, ok := c.st.early[id]; ok {
		ss.counted, ss.credits = true, n
		delete(c.st.early, id)
		c.st.nearly.Store(int32(len(c.st.early)))
	}
	if c.st.serving == nil {
		c.st.serving = make(map[string]*serverStream)
	}
	c.st.serving[id] = ss
	c.st.mu.Unlock()
	return ss
}

func (c *Conn) closeServerStream(ss *serverStream) {
	c.st.mu.Lock()
	if c.st.serving[ss.id] == ss {
		delete(c.st.serving, ss.id)
	}
	c.st.mu.Unlock()
}

// Item waits for a credit (when the client grants them), then writes the item's
// notification.
func (ss *serverStream) Item(ctx context.Context, id ID, raw json.RawMessage) error {
	for ss.counted {
		ss.mu.Lock()
		if ss.credits > 0 {
			ss.credits--
			ss.mu.Unlock()
			break
		}
		ss.mu.Unlock()
		select {
		case <-ss.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	buf := getBuffer()
	buf.b = AppendStreamItem(buf.b, id, raw)
	err := ss.c.writeSoon(ctx, buf.b)
	buf.free()
	return err
}

func (ss *serverStream) grant(n int) {
	ss.mu.Lock()
	ss.credits += n
	ss.mu.Unlock()
	select {
	case ss.wake <- struct{}{}:
	default:
	}
}

// streamControl handles, in the reader, the stream notifications of the
// protocol (see StreamItemMethod); it reports whether m was one.
func (c *Conn) streamControl(m *message) bool {
	name := m.method
	if len(name) < 4 || name[1] != '$' {
		return false
	}
	switch string(name[1 : len(name)-1]) {
	case StreamItemMethod:
		c.streamItem(m.params)
	case StreamCreditMethod:
		id, n := streamParams(m.params, "n")
		c.credit(string(id), n)
	case StreamCancelMethod:
		if id, _ := streamParams(m.params, ""); id != nil {
			c.tr.cancel(makeID(id))
		}
	default:
		return false
	}
	return true
}

// streamParams reads the raw "id" of a stream notification's params and, when
// key is not "", the member key (an item, or a count).
func streamParams(params []byte, key string) (id, val []byte) {
	obj, ok := jsonscan.OpenObject(params)
	for ok {
		k, v, more := obj.NextMember()
		if !more {
			break
		}
		switch string(jsonscan.UnescapeKey(k)) {
		case "id":
			id = v
		case key:
			val = v
		}
	}
	return id, val
}

// credit adds n credits to the stream id, or keeps them for when it starts.
func (c *Conn) credit(id string, raw []byte) {
	n, err := strconv.Atoi(string(raw))
	if id == "" || err != nil || n <= 0 {
		c.logger.Debug("jsonrpc: ignored a malformed stream credit", "id", id, "n", string(raw))
		return
	}
	c.st.mu.Lock()
	ss := c.st.serving[id]
	if ss == nil {
		switch {
		case c.st.early[id] > 0:
			c.st.early[id] += n
		case len(c.st.early) < maxEarly:
			if c.st.early == nil {
				c.st.early = make(map[string]int)
			}
			c.st.early[id] = n
			c.st.nearly.Store(int32(len(c.st.early)))
		default:
			c.logger.Debug("jsonrpc: too many stream credits for requests not streaming; ignored", "id", id)
		}
	}
	c.st.mu.Unlock()
	if ss != nil {
		ss.grant(n)
	}
}

// forgetEarly drops credits kept for a request that has been answered without
// streaming (a method that is not a stream).
func (c *Conn) forgetEarly(id []byte) {
	if c.st.nearly.Load() == 0 {
		return
	}
	c.st.mu.Lock()
	delete(c.st.early, string(id))
	c.st.nearly.Store(int32(len(c.st.early)))
	c.st.mu.Unlock()
}

// bufferedFramer is a framer (the line and header framers) that can buffer a
// message and send it later with whatever followed it.
type bufferedFramer interface {
	bufferMessage(msg []byte) error
	flush() error
}

// writeSoon writes msg without waiting for it to reach the peer: it goes into
// the framer's buffer, and a flusher goroutine sends the buffer as soon as it
// can. A producer that is faster than the writes so has its items batched
// into few writes (one syscall for many items), while a slow one still gets
// each item out at once. A full buffer is written on the spot, so a peer that
// reads slowly still slows the producer. Framers that cannot buffer write
// msg at once.
func (c *Conn) writeSoon(ctx context.Context, msg []byte) error {
	bf, ok := c.f.(bufferedFramer)
	if !ok {
		return c.write(ctx, msg)
	}
	if err := c.hold(len(msg), false); err != nil {
		return err
	}
	select {
	case c.wsem <- struct{}{}:
	case <-ctx.Done():
		c.unhold(len(msg))
		return ctx.Err()
	}
	err := bf.bufferMessage(msg)
	c.unflushed = true
	<-c.wsem
	c.unhold(len(msg))
	if err != nil {
		return err
	}
	c.flushOnce.Do(func() {
		c.flushReq = make(chan struct{}, 1)
		go c.flusher(bf)
	})
	select {
	case c.flushReq <- struct{}{}:
	default: // a flush is already due
	}
	return nil
}

// flusher sends what writeSoon buffered, until the connection closes.
func (c *Conn) flusher(bf bufferedFramer) {
	for {
		select {
		case <-c.flushReq:
		case <-c.closing:
			return
		}
		select {
		case c.wsem <- struct{}{}:
		case <-c.closing:
			return
		}
		if c.unflushed {
			c.unflushed = false
			if err := bf.flush(); err != nil {
				c.logger.Debug("jsonrpc: flush stream items", "err", err)
			}
		}
		<-c.wsem
	}
}
