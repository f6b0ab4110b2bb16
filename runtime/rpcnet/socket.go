package rpcnet

import (
	"errors"
	"fmt"
	"net"
	"os"
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
}

func newSocket(nc net.Conn, write, idle, msg time.Duration) *socket {
	if write == 0 {
		write = DefaultWriteTimeout
	}
	if msg == 0 {
		msg = DefaultMessageTimeout
	}
	s := &socket{nc: nc, write: write, idle: idle, msg: msg}
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
			return 0, fmt.Errorf("rpcnet: nothing read for %v with no request in flight (a peer gone without closing?): %w", s.idle, err)
		}
		if err != nil {
			if cut := s.cut.Load(); cut != nil {
				err = *cut
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

func (s *socket) Close() error { return s.nc.Close() }
