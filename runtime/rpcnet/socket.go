package rpcnet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

var (
	errTooManyFiles = syscall.EMFILE
	errAddrInUse    = syscall.EADDRINUSE
)

// socket is a net.Conn as a runtime.Conn's framer reads and writes it: each
// write within the write timeout; each message, once its first byte has come,
// whole within the message timeout (the framer tells it where messages begin
// and end: runtime.ReadTimer); and reads within the idle timeout while no
// request is in flight. A write that times out closes the socket, since the
// peer would otherwise read half a message.
type socket struct {
	nc    net.Conn
	write time.Duration // <= 0: no deadline
	idle  time.Duration // <= 0: none
	msg   time.Duration // <= 0: none
	conn  atomic.Pointer[runtime.Conn]
	// cut is why the socket was closed on our side (a write that timed out,
	// a connection closed to make room); the reader then reports it as the
	// connection's end rather than "use of closed network connection".
	cut atomic.Pointer[error]

	// The reader's own state.
	began    time.Time // when the message being read began; zero between messages
	deadline time.Time // the read deadline set on nc

	// active is when the socket last read or wrote a byte (Unix nanoseconds)
	// and midMessage whether a message is being read, for choosing which
	// connection is idle.
	active     atomic.Int64
	midMessage atomic.Bool

	// readEnded is closed when a read fails (the peer's end of stream, or
	// any error): Close waits for it, a little, before closing.
	readEnded chan struct{}
	endOnce   sync.Once
	// client is set on the sockets Dial makes: a server's end of stream
	// means it answers no more, so the reader closes the socket then, and
	// the server, lingering for that close (see Close), closes at once too
	// instead of after lingerTimeout. closed is set by whichever of the
	// reader and Close closes first.
	client bool
	closed atomic.Bool

	// gone is closed when a write fails: the peer reads nothing more (it
	// closed or reset the connection), so the server does not give the
	// connection its grace period to answer what it read.
	gone     chan struct{}
	goneOnce sync.Once
}

// lingerTimeout bounds how long Close waits, its sending side shut, for the
// peer to close its own. Closing a socket with unread data in its receive
// buffer (a request the peer sent as the connection ended) resets the
// connection, and the peer's system then discards what it had not read yet:
// answers written before the close.
const lingerTimeout = 500 * time.Millisecond

func newSocket(nc net.Conn, write, idle, msg time.Duration) *socket {
	if write == 0 {
		write = DefaultWriteTimeout
	}
	if msg == 0 {
		msg = DefaultMessageTimeout
	}
	s := &socket{nc: nc, write: write, idle: idle, msg: msg, readEnded: make(chan struct{}), gone: make(chan struct{})}
	s.active.Store(time.Now().UnixNano())
	return s
}

// BeginMessage implements runtime.ReadTimer: a message's clock starts now if
// its first bytes are already buffered, else with the first read that brings
// one.
func (s *socket) BeginMessage(started bool) {
	if started && s.msg > 0 {
		s.began = time.Now()
		s.midMessage.Store(true)
	}
}

// EndMessage implements runtime.ReadTimer.
func (s *socket) EndMessage() {
	s.began = time.Time{}
	s.midMessage.Store(false)
}

func (s *socket) Read(p []byte) (int, error) {
	for {
		// The earlier of the message's deadline and the idle one.
		var deadline time.Time
		timing := !s.began.IsZero()
		if timing {
			deadline = s.began.Add(s.msg)
		}
		if s.idle > 0 {
			if idle := time.Now().Add(s.idle); !timing || idle.Before(deadline) {
				deadline, timing = idle, false
			}
		}
		if !deadline.Equal(s.deadline) {
			s.nc.SetReadDeadline(deadline)
			s.deadline = deadline
		}
		n, err := s.nc.Read(p)
		if n > 0 {
			now := time.Now()
			s.active.Store(now.UnixNano())
			if s.began.IsZero() && s.msg > 0 && !blank(p[:n]) {
				s.began = now
				s.midMessage.Store(true)
			}
		}
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			if timing {
				err = fmt.Errorf("rpcnet: a message took over %v to arrive (a peer sending slowly or stalled mid-message); disconnected: %w", s.msg, err)
				s.cut.CompareAndSwap(nil, &err)
				s.nc.Close()
				return 0, err
			}
			if c := s.conn.Load(); c != nil && c.Inflight() > 0 {
				continue // the peer waits for us, it is not idle
			}
			s.endOnce.Do(func() { close(s.readEnded) }) // nothing to linger for
			return 0, fmt.Errorf("rpcnet: nothing read for %v with no request in flight (a peer gone without closing?): %w", s.idle, err)
		}
		if err != nil {
			s.endOnce.Do(func() { close(s.readEnded) })
			if cut := s.cut.Load(); cut != nil {
				err = *cut
			}
			if s.client && errors.Is(err, io.EOF) && s.closed.CompareAndSwap(false, true) {
				s.nc.Close()
			}
		}
		return n, err
	}
}

// blank reports whether b is only white space, which starts no message.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func (s *socket) Write(p []byte) (int, error) {
	if s.write > 0 {
		s.nc.SetWriteDeadline(time.Now().Add(s.write))
	}
	n, err := s.nc.Write(p)
	if n > 0 {
		s.active.Store(time.Now().UnixNano())
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("rpcnet: a write took over %v, so the peer is not reading; disconnected: %w", s.write, err)
		s.cutOff(err)
	}
	if err != nil {
		s.goneOnce.Do(func() { close(s.gone) })
	}
	return n, err
}

// cutOff closes the socket for reason, which the reader then reports.
func (s *socket) cutOff(reason error) {
	s.cut.CompareAndSwap(nil, &reason)
	s.nc.Close()
}

// idleFor returns how long the connection has been idle at now: nothing read
// or written, no message begun, no request in flight; 0 when it is not idle.
func (s *socket) idleFor(now time.Time) time.Duration {
	if s.midMessage.Load() {
		return 0
	}
	if c := s.conn.Load(); c == nil || c.Inflight() > 0 {
		return 0
	}
	return now.Sub(time.Unix(0, s.active.Load()))
}

// Close shuts the sending side first, so that the peer reads every answer
// and then the end of the stream, reads and drops what the peer still sends
// until it closes its side too (or lingerTimeout passes), and then closes.
// Closing at once with data unread would reset the connection, and the
// peer's system would discard the answers it had not read yet.
func (s *socket) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil // the reader closed it at the server's end of stream
	}
	select {
	case <-s.readEnded:
		return s.nc.Close()
	default:
	}
	cw, ok := s.nc.(interface{ CloseWrite() error })
	if !ok || s.cut.Load() != nil || cw.CloseWrite() != nil {
		return s.nc.Close()
	}
	// The connection's reader may be reading too, and move the deadline:
	// the timer closes the socket all the same.
	t := time.AfterFunc(lingerTimeout, func() { s.nc.Close() })
	deadline := time.Now().Add(lingerTimeout)
	buf := make([]byte, 4<<10)
	for {
		s.nc.SetReadDeadline(deadline)
		if _, err := s.nc.Read(buf); err != nil {
			break
		}
	}
	if !t.Stop() {
		return nil // the timer closed it
	}
	return s.nc.Close()
}
