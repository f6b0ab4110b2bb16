// Package websocket carries JSON-RPC 2.0 over WebSocket, on
// github.com/coder/websocket: NewHandler serves a runtime.Handler (a generated
// dispatcher) to WebSocket clients, and Dial connects a generated client to
// such a server, reconnecting with backoff. Each connection is a
// runtime.Conn, so either side may call the other and typed streams work as
// over a socket. One JSON-RPC message, or one batch, travels per text frame.
//
// It is a module of its own so that programs that do not use WebSocket do not
// download its library.
package websocket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/rpcgen/rpcgen/runtime"
)

// Defaults of Options and DialOptions.
const (
	// DefaultPingInterval is how often an idle connection is pinged.
	DefaultPingInterval = 30 * time.Second
	// DefaultPingTimeout is how long a pong may take before the peer counts
	// as gone (a half-open connection) and the connection is closed.
	DefaultPingTimeout = 15 * time.Second
	// DefaultWriteTimeout bounds each frame's write: a peer that stops
	// reading is disconnected.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultMessageTimeout bounds the time a message takes to arrive once
	// its first frame has begun: a peer that trickles a message in small
	// fragments is disconnected.
	DefaultMessageTimeout = 30 * time.Second
)

// hardLimitFactor sets the frame size beyond which the connection is closed
// (status 1009) instead of the frame being skipped: a frame up to
// MaxMessageSize·hardLimitFactor is read and discarded, and answered with an
// error, as the stream framers do.
const hardLimitFactor = 16

// framer is a runtime.Framer over one WebSocket connection.
type framer struct {
	ws      *websocket.Conn
	max     int
	write   time.Duration
	msg     time.Duration // <= 0: none
	msgT    *time.Timer   // cuts a message that takes longer than msg; made on first use
	scratch bytes.Buffer
	// cut is why the connection was closed on our side (a ping that got no
	// pong, a write that timed out): ReadMessage reports it instead of the
	// library's "failed to read frame header: EOF".
	cut atomic.Pointer[error]
	// gone is closed once the peer can read nothing more: a write failed,
	// the connection ended without a closing handshake, or it was cut. The
	// server then cancels the handlers still running at once instead of
	// giving the connection its grace period to answer.
	gone     chan struct{}
	goneOnce sync.Once
}

// markGone closes gone.
func (f *framer) markGone() { f.goneOnce.Do(func() { close(f.gone) }) }

func newFramer(ws *websocket.Conn, maxSize int, write, msg time.Duration) *framer {
	if maxSize <= 0 {
		maxSize = runtime.DefaultMaxMessageSize
	}
	if write == 0 {
		write = DefaultWriteTimeout
	}
	if msg == 0 {
		msg = DefaultMessageTimeout
	}
	ws.SetReadLimit(int64(maxSize) * hardLimitFactor)
	return &framer{ws: ws, max: maxSize, write: write, msg: msg, gone: make(chan struct{})}
}

var errBinary = &runtime.FrameError{Reason: "a binary frame: JSON-RPC messages travel in text frames"}

// ReadMessage implements runtime.Framer: one text frame is one message. A
// binary frame is skipped and reported as a *runtime.FrameError, one over the
// size limit as runtime.ErrMessageTooLarge; both are answered and the
// connection goes on.
func (f *framer) ReadMessage() ([]byte, error) {
	typ, r, err := f.ws.Reader(context.Background())
	if err != nil {
		return nil, f.readErr(err)
	}
	// The message's first frame has begun: the rest must come within the
	// message timeout. (A peer stalled inside a frame header answers no
	// ping, and the keepalive cuts it.)
	if f.msg > 0 {
		if f.msgT == nil {
			f.msgT = time.AfterFunc(f.msg, func() {
				f.cutOff(fmt.Errorf("websocket: a message took over %v to arrive (a peer sending slowly or stalled mid-message); disconnected", f.msg))
			})
		} else {
			f.msgT.Reset(f.msg)
		}
		defer f.msgT.Stop()
	}
	if typ != websocket.MessageText {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return nil, f.readErr(err)
		}
		return nil, errBinary
	}
	f.scratch.Reset()
	// One large message, whatever became of it, does not pin its buffer for
	// as long as the connection lives.
	defer f.shrink()
	n, err := f.scratch.ReadFrom(io.LimitReader(r, int64(f.max)+1))
	if err != nil {
		return nil, f.readErr(err)
	}
	if n > int64(f.max) {
		f.shrink() // before the rest is read and discarded, which may take long
		if _, err := io.Copy(io.Discard, r); err != nil {
			return nil, f.readErr(err)
		}
		return nil, runtime.ErrMessageTooLarge
	}
	return bytes.Clone(f.scratch.Bytes()), nil
}

// maxKeptBuffer is the largest read buffer a connection keeps between
// messages.
const maxKeptBuffer = 64 << 10

// shrink lets go of a read buffer grown by a large message.
func (f *framer) shrink() {
	if f.scratch.Cap() > maxKeptBuffer {
		f.scratch = bytes.Buffer{}
	}
}

func (f *framer) readErr(err error) error {
	if cut := f.cut.Load(); cut != nil {
		return *cut
	}
	if websocket.CloseStatus(err) == -1 {
		f.markGone() // no closing handshake: the connection itself ended
	}
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway:
		return io.EOF
	case websocket.StatusMessageTooBig:
		return fmt.Errorf("websocket: a frame over %d bytes; the connection was closed (1009): %w", f.max*hardLimitFactor, err)
	}
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return fmt.Errorf("websocket: %w", err)
}

// WriteMessage implements runtime.Framer: msg goes out as one text frame,
// within the write timeout.
//
// The timeout is a timer of ours rather than a deadline in the context: the
// library closes the connection when a write's context expires, and the
// reader would report that before the reason was known.
func (f *framer) WriteMessage(msg []byte) error {
	if f.write > 0 {
		t := time.AfterFunc(f.write, func() {
			f.cutOff(fmt.Errorf("websocket: a write took over %v, so the peer is not reading; disconnected", f.write))
		})
		defer t.Stop()
	}
	err := f.ws.Write(context.Background(), websocket.MessageText, msg)
	if err != nil {
		f.markGone()
	}
	if cut := f.cut.Load(); err != nil && cut != nil {
		return *cut
	}
	return err
}

// cutOff closes the connection of a peer that stopped answering, without
// waiting for a close handshake it would not answer; the reader then reports
// reason.
func (f *framer) cutOff(reason error) {
	f.cut.CompareAndSwap(nil, &reason)
	f.ws.CloseNow()
	f.markGone()
}

// Close implements runtime.Framer.
// A failure to close (the peer already gone) is not reported: the
// connection is closed either way.
func (f *framer) Close() error {
	f.ws.Close(websocket.StatusNormalClosure, "")
	return nil
}

// keepAlive pings the peer every interval; a ping without a pong within
// timeout closes the connection. It returns when done is closed.
func (f *framer) keepAlive(done <-chan struct{}, interval, timeout time.Duration) {
	if interval == 0 {
		interval = DefaultPingInterval
	}
	if timeout == 0 {
		timeout = DefaultPingTimeout
	}
	if interval < 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		// A timer of ours, as in WriteMessage, so that the reason is set
		// before the connection closes.
		t := time.AfterFunc(timeout, func() {
			f.cutOff(fmt.Errorf("websocket: no pong within %v of a ping: the peer is gone (a half-open connection)", timeout))
		})
		err := f.ws.Ping(context.Background())
		t.Stop()
		if err != nil {
			return
		}
	}
}
