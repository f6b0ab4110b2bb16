// Package rpcnet carries JSON-RPC 2.0 over stream sockets, TCP and Unix: a
// Server that serves a net.Listener with a connection limit and graceful
// shutdown, and Dial, a client that reconnects with backoff. Each connection is
// a runtime.Conn, so either side may call the other, and streams work as over
// stdio. It uses the standard library only.
package rpcnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("rpcnet: server closed")

// DefaultMaxConns is the connection limit of a Server whose MaxConns is 0.
const DefaultMaxConns = 1024

// shutdownGrace bounds how long a connection whose peer stopped sending has
// to answer what it read.
const shutdownGrace = 5 * time.Second

// DefaultWriteTimeout bounds a write to a peer unless WriteTimeout says
// otherwise.
const DefaultWriteTimeout = 30 * time.Second

// DefaultMessageTimeout bounds the time a message takes to arrive, once its
// first byte has, unless MessageTimeout says otherwise: a message of the
// default size limit (4 MiB) needs about 140 KB/s.
const DefaultMessageTimeout = 30 * time.Second

// DefaultEvictIdle is how long a connection must have been idle before a new
// connection at the limit takes its place, unless EvictIdle says otherwise.
const DefaultEvictIdle = time.Minute

// Server serves JSON-RPC 2.0 on the connections of a net.Listener. Set its
// fields before Serve; the zero Server serves with no handler.
type Server struct {
	// Options configure every connection: Handler serves its requests, Framing
	// delimits its messages (newline-delimited JSON by default, or
	// Content-Length headers), and the limits apply per connection.
	Options runtime.Options
	// MaxConns bounds the connections served at once (default DefaultMaxConns;
	// negative for none). A connection beyond it gets one error response, id
	// null, saying so, and is closed; the listener keeps accepting.
	MaxConns int
	// WriteTimeout bounds each write to a peer (default DefaultWriteTimeout;
	// negative for none): a peer that stops reading (a stream it never reads,
	// a host that vanished) is disconnected instead of holding its handlers.
	WriteTimeout time.Duration
	// MessageTimeout bounds the time a message takes to arrive once its first
	// byte has (default DefaultMessageTimeout; negative for none): a peer that
	// sends a message slowly, or stops halfway, is disconnected, with "a
	// message took over 30s to arrive" as the connection's Err. Time between
	// messages does not count (see IdleTimeout), nor does white space.
	MessageTimeout time.Duration
	// EvictIdle is how long a connection must have been idle (nothing read or
	// written, no message begun, no request in flight) for a new connection
	// at MaxConns to take its place (default DefaultEvictIdle; negative:
	// never): the idle connection longest so is closed, the reason logged at
	// Info, and the new one served. Only when no connection has been idle that
	// long is the new one refused.
	EvictIdle time.Duration
	// IdleTimeout, if positive, closes a connection from which nothing has been
	// read for this long while none of its requests is in flight: a peer that
	// went away without closing (a half-open connection) or sends nothing. Off
	// by default, since a client's next call could meet the close.
	IdleTimeout time.Duration
	// OnConnect, if set, is called with each new connection before it is read
	// (to keep it and call the client back, say).
	OnConnect func(*runtime.Conn)

	mu       sync.Mutex
	lns      map[net.Listener]struct{}
	conns    map[*runtime.Conn]*socket
	shutdown bool
	wg       sync.WaitGroup
}

// Serve accepts connections on ln and serves each on its own goroutines until
// Shutdown or Close, after which it returns ErrServerClosed; it closes ln. A
// temporary accept error (too many open files) is retried after a pause.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	if s.lns == nil {
		s.lns = map[net.Listener]struct{}{}
		s.conns = map[*runtime.Conn]*socket{}
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lns, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var pause time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closed() {
				return ErrServerClosed
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() || errors.Is(err, errTooManyFiles) {
				pause = min(max(2*pause, 5*time.Millisecond), time.Second)
				s.logger().Warn("rpcnet: accept failed; retrying", "err", err, "pause", pause)
				time.Sleep(pause)
				continue
			}
			return fmt.Errorf("rpcnet: accept: %w", err)
		}
		pause = 0
		s.serveConn(nc)
	}
}

func (s *Server) logger() *slog.Logger {
	if s.Options.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Options.Logger
}

func (s *Server) closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shutdown
}

func (s *Server) maxConns() int {
	if s.MaxConns == 0 {
		return DefaultMaxConns
	}
	return s.MaxConns
}

// busyResponse is written to a connection over the limit before it is closed.
func (s *Server) busyResponse() []byte {
	e := runtime.NewError(runtime.CodeServerError, fmt.Sprintf("server busy: it serves its limit of %d connections; try again later", s.maxConns()))
	return runtime.AppendErrorResponse(nil, runtime.ID{}, e)
}

func (s *Server) serveConn(nc net.Conn) {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		nc.Close()
		return
	}
	if limit := s.maxConns(); limit > 0 && len(s.conns) >= limit && !s.evictIdle(limit) {
		s.mu.Unlock()
		s.logger().Warn("rpcnet: connection refused: at the connection limit", "remote", nc.RemoteAddr().String(), "limit", limit)
		go refuse(nc, frameFor(s.Options.Framing, s.busyResponse()))
		return
	}
	sock := newSocket(nc, s.WriteTimeout, s.IdleTimeout, s.MessageTimeout)
	c := runtime.NewConn(runtime.NewFramer(s.Options.Framing, sock, sock, s.Options.MaxMessageSize), s.withLogger(nc.LocalAddr().Network()))
	sock.conn.Store(c)
	s.conns[c] = sock
	s.wg.Add(1)
	s.mu.Unlock()
	if s.OnConnect != nil {
		s.OnConnect(c)
	}
	go func() {
		defer s.wg.Done()
		<-c.Done()
		if err := c.Err(); err != nil {
			s.logger().Info("rpcnet: connection ended", "remote", nc.RemoteAddr().String(), "err", err)
		}
		// The peer may have only closed its side: the requests it sent are
		// still answered, within a grace period, unless a write shows that
		// it reads no more (it closed or reset the connection): then the
		// handlers still running are cancelled at once.
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		go func() {
			select {
			case <-sock.gone:
				cancel()
			case <-ctx.Done():
			}
		}()
		c.Shutdown(ctx)
		cancel()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
}

// evictIdle closes the connection idle longest, if one has been idle for
// EvictIdle, to make room for a new one; s.mu is held. The closed connection
// leaves the count at once.
func (s *Server) evictIdle(limit int) bool {
	min := s.EvictIdle
	if min == 0 {
		min = DefaultEvictIdle
	}
	if min < 0 {
		return false
	}
	now := time.Now()
	var victim *runtime.Conn
	var longest time.Duration
	for c, sock := range s.conns {
		if d := sock.idleFor(now); d >= min && d > longest {
			victim, longest = c, d
		}
	}
	if victim == nil {
		return false
	}
	sock := s.conns[victim]
	delete(s.conns, victim)
	reason := fmt.Errorf("rpcnet: closed after %v idle to make room for a new connection at the limit of %d connections", longest.Round(time.Second), limit)
	s.logger().Info("rpcnet: closed an idle connection to make room", "remote", sock.nc.RemoteAddr().String(), "idle", longest, "limit", limit)
	sock.cutOff(reason)
	return true
}

func (s *Server) withLogger(network string) runtime.Options {
	o := s.Options
	o.Logger = s.logger()
	if o.Transport == "" {
		o.Transport = transportOf(network)
	}
	return o
}

// transportOf names the network of a net.Addr as runtime.Options.Transport does.
func transportOf(network string) string {
	switch network {
	case "unix", "unixpacket", "unixgram":
		return runtime.TransportUnix
	case "tcp", "tcp4", "tcp6":
		return runtime.TransportTCP
	}
	return network
}

// refuse writes msg to a connection over the limit, then closes it, once
// the peer has closed its side or lingerTimeout has passed: closing with
// what the peer sent unread would reset the connection, and the peer could
// lose msg.
func refuse(nc net.Conn, msg []byte) {
	nc.SetWriteDeadline(time.Now().Add(time.Second))
	nc.Write(msg)
	if cw, ok := nc.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		nc.SetReadDeadline(time.Now().Add(lingerTimeout))
		io.Copy(io.Discard, io.LimitReader(nc, 1<<20))
	}
	nc.Close()
}

// frameFor frames one message as the framing writes it.
func frameFor(f runtime.Framing, msg []byte) []byte {
	if f == runtime.ContentLength {
		return append(fmt.Appendf(nil, "Content-Length: %d\r\n\r\n", len(msg)), msg...)
	}
	return append(msg, '\n')
}

// Shutdown stops accepting, lets each connection finish the requests it has
// read (runtime.Conn.Shutdown: new requests get an error), then closes them;
// it returns once all are closed, or closes the rest at once when ctx ends and
// returns ctx.Err().
func (s *Server) Shutdown(ctx context.Context) error {
	conns := s.stop()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.Shutdown(ctx) })
	}
	wg.Wait()
	s.wg.Wait()
	return ctx.Err()
}

// Close stops accepting and closes every connection at once: their calls in
// flight fail and their handlers' contexts are cancelled.
func (s *Server) Close() error {
	for _, c := range s.stop() {
		c.Close()
	}
	s.wg.Wait()
	return nil
}

func (s *Server) stop() []*runtime.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdown = true
	for ln := range s.lns {
		ln.Close()
	}
	conns := make([]*runtime.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	return conns
}

// Conns returns the number of connections being served.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
