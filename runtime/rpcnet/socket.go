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
// write within the write timeout, and reads within the idle timeout while no
// request is in flight. A write that times out closes the socket, since the
// peer would otherwise read half a message.
type socket struct {
	nc    net.Conn
	write time.Duration // <= 0: no deadline
	idle  time.Duration // <= 0: none
	conn  atomic.Pointer[runtime.Conn]
	// cut is why a write closed the socket; the reader then reports it as the
	// connection's end rather than "use of closed network connection".
	cut atomic.Pointer[error]
}

func newSocket(nc net.Conn, write, idle time.Duration) *socket {
	if write == 0 {
		write = DefaultWriteTimeout
	}
	return &socket{nc: nc, write: write, idle: idle}
}

func (s *socket) Read(p []byte) (int, error) {
	for {
		if s.idle > 0 {
			s.nc.SetReadDeadline(time.Now().Add(s.idle))
		}
		n, err := s.nc.Read(p)
		if n == 0 && s.idle > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
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

func (s *socket) Write(p []byte) (int, error) {
	if s.write > 0 {
		s.nc.SetWriteDeadline(time.Now().Add(s.write))
	}
	n, err := s.nc.Write(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("rpcnet: a write took over %v, so the peer is not reading; disconnected: %w", s.write, err)
		s.cut.CompareAndSwap(nil, &err)
		s.nc.Close()
	}
	return n, err
}

func (s *socket) Close() error { return s.nc.Close() }
