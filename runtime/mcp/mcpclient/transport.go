package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
	"github.com/rpcgen/rpcgen/runtime/mcp"
	"github.com/rpcgen/rpcgen/runtime/mcp/internal/wire"
)

// clientTransport carries a client's messages to a server.
type clientTransport interface {
	// roundTrip sends the request msg, whose id is id, and returns the result
	// or error member of its response. onProgress, if set, receives the
	// progress notifications whose token is id until the response arrives.
	// When ctx ends first it tells the server (notifications/cancelled) and
	// returns ctx.Err().
	roundTrip(ctx context.Context, id int64, msg []byte, onProgress func(mcp.ProgressNotification)) (clientReply, error)
	// send sends the notification msg.
	send(ctx context.Context, msg []byte) error
	// close ends the transport; calls waiting on it fail.
	close() error
}

// clientReply is the result or the error member of one response; exactly one is set.
type clientReply struct {
	result, errObj []byte
}

// clientStream is a transport over a runtime.Framer, read by one goroutine.
// The reader handles messages in the order they arrive: a progress
// notification sent before a response reaches its callback before the call
// returns, and none sent after it does.
type clientStream struct {
	c    *Client
	f    runtime.Framer
	wsem chan struct{} // serializes writes; a channel so a writer can give up on ctx

	mu      sync.Mutex
	pending map[int64]*clientPending
	closed  bool
	endErr  error

	cancels    sync.WaitGroup // notifications/cancelled still being sent
	done       chan struct{}  // closed when the reader ends
	closeOnce  sync.Once
	closeErr   error
	afterClose func() error // waits for a subprocess, for DialCommand
}

// clientPending is one call waiting for its response.
type clientPending struct {
	ch         chan clientReply // buffered; the reader never blocks on it
	onProgress func(mcp.ProgressNotification)
}

// clientCancelFlush bounds how long Close waits for pending cancellation notices.
const clientCancelFlush = time.Second

func newClientStream(c *Client, f runtime.Framer) *clientStream {
	s := &clientStream{
		c:       c,
		f:       f,
		wsem:    make(chan struct{}, 1),
		pending: make(map[int64]*clientPending),
		done:    make(chan struct{}),
	}
	go s.read()
	return s
}

func (s *clientStream) write(ctx context.Context, msg []byte) error {
	select {
	case s.wsem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return s.closedErr()
	}
	err := s.f.WriteMessage(msg)
	<-s.wsem
	if err != nil {
		return fmt.Errorf("mcp: write: %w", err)
	}
	return nil
}

func (s *clientStream) closedErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endErr != nil {
		return fmt.Errorf("%w: %v", runtime.ErrClosed, s.endErr)
	}
	return runtime.ErrClosed
}

func (s *clientStream) roundTrip(ctx context.Context, id int64, msg []byte, onProgress func(mcp.ProgressNotification)) (clientReply, error) {
	p := &clientPending{ch: make(chan clientReply, 1), onProgress: onProgress}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return clientReply{}, s.closedErr()
	}
	s.pending[id] = p
	s.mu.Unlock()
	if err := s.write(ctx, msg); err != nil {
		s.unregister(id)
		return clientReply{}, err
	}
	select {
	case r := <-p.ch:
		if r.result == nil && r.errObj == nil {
			return r, s.closedErr()
		}
		return r, nil
	case <-ctx.Done():
		reason := ctx.Err()
		tell := ctx.Value(clientNoCancelKey{}) == nil
		s.mu.Lock()
		_, waiting := s.pending[id]
		delete(s.pending, id)
		if waiting && tell && !s.closed {
			// Added under mu while open, so never concurrently with close's Wait.
			s.cancels.Add(1)
			go func() {
				defer s.cancels.Done()
				s.cancel(id, reason)
			}()
		}
		s.mu.Unlock()
		return clientReply{}, reason
	}
}

// clientNoCancelKey marks a context whose end must not be told to the server:
// the era probe's, since a legacy server expects nothing before initialize.
type clientNoCancelKey struct{}

// unregister forgets call id and reports whether it was still waiting.
func (s *clientStream) unregister(id int64) bool {
	s.mu.Lock()
	_, ok := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	return ok
}

// cancel tells the server that the caller gave up on request id.
func (s *clientStream) cancel(id int64, reason error) {
	cb := clientGetBuf()
	defer cb.free()
	cb.begin(0, mcp.NotificationCancelled)
	cb.field("requestId")
	cb.b.WriteString(strconv.FormatInt(id, 10))
	cb.field("reason")
	cb.str(reason.Error())
	cb.end(s.c.requestMeta(), 0)
	if err := s.write(context.Background(), cb.b.Bytes()); err != nil {
		s.c.logger.Debug("mcp: send "+mcp.NotificationCancelled, "id", id, "err", err)
	}
}

func (s *clientStream) send(ctx context.Context, msg []byte) error {
	return s.write(ctx, msg)
}

// read is the only reader of the stream.
func (s *clientStream) read() {
	var cause error
	for {
		msg, err := s.f.ReadMessage()
		if errors.Is(err, runtime.ErrMessageTooLarge) {
			s.c.logger.Warn("mcp: skipped a message over the size limit")
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				cause = err
			}
			break
		}
		s.handle(msg)
	}
	s.mu.Lock()
	s.closed = true
	if s.endErr == nil {
		s.endErr = cause
	}
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, p := range pending {
		p.ch <- clientReply{}
	}
	close(s.done)
	s.c.connectionEnded()
}

// handle routes one message from the server.
func (s *clientStream) handle(msg []byte) {
	var env wire.Envelope
	if !env.Scan(msg) {
		s.c.logger.Debug("mcp: dropped a malformed message from the server")
		return
	}
	switch {
	case env.IsResponse():
		id, ok := wire.ParseID(env.ID)
		var p *clientPending
		if ok {
			s.mu.Lock()
			p = s.pending[id]
			delete(s.pending, id)
			s.mu.Unlock()
		}
		if p == nil {
			s.c.logger.Debug("mcp: dropped a response with an unknown id", "id", string(env.ID))
			return
		}
		p.ch <- clientReply{result: env.Result, errObj: env.Error}
	case env.Method == nil:
		s.c.logger.Debug("mcp: dropped a message that is neither a request nor a response")
	case env.ID != nil:
		// Answered off the reader: a handler may take a while (a user
		// answering a form) and a full pipe must not stall the replies we
		// wait for. msg is ours (ReadMessage returns a fresh slice). The
		// goroutine gets a copy, so that env stays on the reader's stack
		// for every other message.
		req := env
		go func() {
			reply := s.c.answerServerRequest(&req)
			if reply == nil {
				return
			}
			if err := s.write(context.Background(), reply); err != nil {
				s.c.logger.Debug("mcp: answer a server request", "err", err)
			}
		}()
	case env.MethodIs(mcp.NotificationProgress):
		pn, ok := clientParseProgress(env.Params)
		if !ok {
			return
		}
		id, ok := wire.ParseID(pn.ProgressToken)
		if !ok {
			return
		}
		s.mu.Lock()
		var f func(mcp.ProgressNotification)
		if p := s.pending[id]; p != nil {
			f = p.onProgress
		}
		s.mu.Unlock()
		if f != nil {
			f(pn)
		}
	default:
		s.c.notification(&env)
	}
}

func (s *clientStream) close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		// Let cancellations already decided reach the server, so it stops
		// that work, but do not wait on a peer that stopped reading.
		sent := make(chan struct{})
		go func() {
			s.cancels.Wait()
			close(sent)
		}()
		select {
		case <-sent:
		case <-time.After(clientCancelFlush):
		}
		if err := s.f.Close(); err != nil && !errors.Is(err, io.ErrClosedPipe) {
			s.closeErr = fmt.Errorf("mcp: close: %w", err)
		}
		if s.afterClose != nil {
			if err := s.afterClose(); err != nil {
				s.closeErr = err
			}
		} else {
			<-s.done
		}
	})
	return s.closeErr
}
